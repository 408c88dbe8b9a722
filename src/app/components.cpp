#include "components.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/thread_pool.hpp>
#include "access_setup.hpp"
#include "agent_setup.hpp"
#include "replica_upkeep.hpp"

#include "harness/core/logging.hpp"
#include "harness/core/metrics.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/core/version.hpp"
#include "harness/core/writable_dir.hpp"
#include "harness/docker/engine_client.hpp"
#include "harness/execution/data_path.hpp"
#include "harness/execution/execution_service.hpp"
#include "harness/execution/execution_settings.hpp"
#include "harness/http/http_settings.hpp"
#include "harness/llm/config.hpp"
#include "harness/llm/health.hpp"
#include "harness/mcp/oauth.hpp"
#include "harness/mcp/tool_registry.hpp"
#include "harness/mcp/transport.hpp"
#include "harness/mcp_server/face_settings.hpp"
#include "harness/mcp_server/mcp_face.hpp"
#include "harness/net/http_client.hpp"
#include "harness/net/net_settings.hpp"
#include "harness/net/url.hpp"
#include "harness/pii/pii_censor.hpp"
#include "harness/pii/vault_seal.hpp"
#include "harness/policy/policy_config.hpp"
#include "harness/sandbox/sandbox.hpp"
#include "harness/sandbox/sandbox_health.hpp"
#include "harness/skills/sandbox_files.hpp"
#include "harness/skills/skill_library.hpp"
#include "harness/skills/workspace_store.hpp"
#include "harness/store/pg_files.hpp"
#include "harness/store/store_config.hpp"
#include "harness/store/store_health.hpp"

namespace harness::app {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

class components_impl final : public components {
 public:
  http::services& services() override { return services_; }

  void listening_on(unsigned short port) override {
    listen_port_->store(port);
    services_.sources.set_port(port);
  }

  void announce() const override {
    if (access_warning_) {
      core::log_warn("{}", access_notice_);
    } else {
      core::log_info("{}", access_notice_);
    }
  }

  asio::awaitable<void> interrupt_tasks(std::chrono::milliseconds grace) override {
    if (agent_) co_await agent_->shutdown(grace);
  }

  asio::awaitable<void> shutdown() override {
    if (agent_) co_await agent_->shutdown(std::chrono::milliseconds(0));
    if (sweeper_) sweeper_->stop();
    if (stop_retention_) stop_retention_();
    if (stop_upkeep_) stop_upkeep_();
    if (face_) co_await face_->shutdown();
    if (execution_) co_await execution_->shutdown();
    if (pool_) co_await pool_->shutdown();
    if (backend_) co_await backend_->shutdown();
    if (registry_) co_await registry_->stop();
    // Last: what still waits on an outbound request gets cancelled, and the
    // engine's thread ends before the process does.
    if (http_engine_) net::stop_engine(*http_engine_);
  }

  http::services services_;
  bool access_warning_ = false;
  std::string access_notice_;
  std::shared_ptr<docker::engine_client> engine_;
  std::shared_ptr<net::engine> http_engine_;  // outbound HTTP: LLM, remote MCP servers, OAuth
  // The port the listener got (PORT may be 0), for OAuth's default redirect URI.
  std::shared_ptr<std::atomic<unsigned short>> listen_port_ = std::make_shared<std::atomic<unsigned short>>(0);
  std::shared_ptr<sandbox::sandbox_backend> backend_;
  std::shared_ptr<sandbox::sandbox_health> sandbox_health_;
  std::shared_ptr<execution::warm_pool> pool_;
  std::shared_ptr<execution::execution_service> execution_;
  std::shared_ptr<mcp_server::mcp_face> face_;
  std::shared_ptr<mcp::tool_registry> registry_;
  std::shared_ptr<const pii::pii_censor> censor_;
  std::shared_ptr<agent::agent_manager> agent_;
  std::unique_ptr<skills::sweeper> sweeper_;
  std::function<void()> stop_retention_;
  std::function<void()> stop_upkeep_;  // the replica upkeep's, with STORE_URL
  // Blocking work (skills and workspace files, retention deletes); its destructor stops and joins it. (retention
  // deletes); its destructor stops and joins it.
  asio::thread_pool background_{2};
};

result<std::shared_ptr<const pii::pii_censor>> build_censor(const core::settings& settings) {
  auto config = pii::load_pii_config(settings);
  if (!config) return config.error();
  auto builder = pii::pii_censor_builder::from_config(*config);
  if (!builder) return builder.error();
  auto censor = builder->build();
  if (!censor) return censor.error();
  return std::make_shared<const pii::pii_censor>(std::move(*censor));
}

// Removes containers a crashed earlier run left behind, then starts filling the pool.
asio::awaitable<void> start_sandboxes(std::shared_ptr<sandbox::sandbox_backend> backend,
                                      std::shared_ptr<execution::warm_pool> pool) {
  auto swept = co_await backend->sweep(nullptr);
  if (swept && *swept > 0) core::log_info("removed {} sandbox container(s) left by an earlier run", *swept);
  if (!swept) core::log_warn("could not sweep old sandbox containers: {}", swept.error().describe());
  pool->start();
}

using execution::guard_factory;

// What replicas sharing one store (STORE_URL) run beside the agent.
struct shared_store_parts {
  std::shared_ptr<store::task_store> store;
  std::shared_ptr<execution::session_directory> directory;
  std::function<void()> stop_upkeep;
  std::string url;  // STORE_URL: skills and workspaces live there too
};

// With STORE_URL: opens the store now (the session directory needs it with or
// without an LLM), reports its health and starts the replica upkeep. Without:
// nothing (the agent opens its SQLite file itself).
result<std::optional<shared_store_parts>> open_shared_store(const asio::any_io_executor& executor,
                                                            const core::settings& settings, const std::string& owner,
                                                            core::health_sources& health) {
  auto config = store::load_store_config(settings);
  if (!config) return config.error();
  if (config->url.empty()) return std::optional<shared_store_parts>();
  // A conversation continued on another replica opens its vault there: the
  // key made beside a local STORE_PATH would differ on each replica.
  // The replica's name owns its tasks, sessions and containers: two replicas
  // under the default name would interrupt and sweep each other's.
  if (!settings.is_set_explicitly("SANDBOX_OWNER")) {
    return make_error(core::errc::invalid_setting, "STORE_URL is set but SANDBOX_OWNER is the default",
                      "give each replica sharing a store its own SANDBOX_OWNER (its name), the same across its "
                      "restarts");
  }
  if (!settings.is_set_explicitly("VAULT_KEY") && !settings.is_set_explicitly("VAULT_KEY_FILE")) {
    return make_error(core::errc::invalid_setting,
                      "STORE_URL is set but the vault key is this replica's own (no VAULT_KEY or VAULT_KEY_FILE)",
                      "replicas sharing a store must seal PII vaults with one key: set VAULT_KEY to the same 64 hex "
                      "digits on each (or VAULT_KEY_FILE to a file they share)");
  }
  auto lease = settings.get_ms("TASK_LEASE_MS", 1000, 3600000);
  if (!lease) return lease.error();
  auto opened = open_task_store(*config, owner);
  if (!opened) return opened.error();
  health.push_back(store::store_health(*opened));
  shared_store_parts out;
  out.store = *opened;
  out.directory = store_session_directory(out.store, owner, *lease);
  out.stop_upkeep = start_replica_upkeep(executor, out.store, owner, *lease);
  out.url = config->url;
  core::log_info("replica '{}' on a shared store: {}", owner, store::describe_store(*config));
  return std::optional<shared_store_parts>(std::move(out));
}

struct file_stores {
  std::shared_ptr<skills::skill_library> library;
  std::shared_ptr<skills::workspace_store> workspaces;
};

// Skills per user and workspaces per task: folders on the host, or with
// STORE_URL rows of the shared database, so that every replica sees what a
// sandbox saved on another (the shipped examples stay in SKILLS_DIR).
result<file_stores> open_file_stores(const skills::skills_config& config, const std::string& store_url) {
  if (!store_url.empty()) {
    auto library = store::create_pg_skill_library(store_url, config.skills);
    if (!library) return library.error();
    auto workspaces = store::create_pg_workspace_store(store_url, config.workspace);
    if (!workspaces) return workspaces.error();
    core::log_info("skills and task workspaces in the shared store (examples from {})",
                   (config.skills.dir / "examples").string());
    return file_stores{std::move(*library), std::move(*workspaces)};
  }
  if (auto ok = core::ensure_writable_dir(config.skills.dir / "users", "SKILLS_DIR"); !ok) return ok.error();
  if (auto ok = core::ensure_writable_dir(config.workspace.dir, "WORKSPACE_DIR"); !ok) return ok.error();
  return file_stores{skills::create_skill_library(config.skills), skills::create_workspace_store(config.workspace)};
}

// TOOL_POLICY_FILE (and APPROVAL_DEFAULT): a factory of call guards, empty
// when neither asks for a policy. A file that cannot be read or parsed stops
// start-up; while running, its health source says how the last reload went.
result<guard_factory> build_guards(const policy::policy_config& config, const std::vector<std::string>& kinds,
                                   const std::shared_ptr<mcp::tool_registry>& registry, core::health_sources& health) {
  std::shared_ptr<policy::policy_source> source;
  if (!config.file.empty()) {
    auto opened = policy::open_policy_file(config.file, {.known_kinds = kinds, .fallback = config.fallback});
    if (!opened) return opened.error();
    source = std::move(*opened);
    health.push_back(source->health());
    core::log_info("tool policy from {}: {} rules", config.file.string(), source->current()->size());
  } else if (config.fallback == policy::approval_default::annotations) {
    auto empty = policy::tool_policy::parse(nlohmann::json{{"rules", nlohmann::json::array()}}, kinds, config.fallback);
    if (!empty) return empty.error();
    source = policy::fixed_policy(std::move(*empty));
  } else {
    return guard_factory();
  }
  // Annotations come from the registry's view of the tool, when the policy reads them.
  policy::annotations_lookup annotations = [registry](const std::string& tool) {
    auto details = registry->details(tool);
    return details ? details->value("annotations", nlohmann::json()) : nlohmann::json();
  };
  return guard_factory([source, annotations] { return std::make_unique<policy::call_guard>(source, annotations); });
}

// OAuth for remote MCP servers: tokens in a file sealed with the vault key,
// and the browser sent back to this server's GET /oauth/callback.
// The token file is opened only when some server uses OAuth: a server
// without one needs no vault key for it.
result<std::shared_ptr<mcp::oauth_manager>> build_oauth(const asio::any_io_executor& executor,
                                                        const core::settings& settings, const mcp::mcp_config& servers,
                                                        std::shared_ptr<net::http_client> http,
                                                        std::shared_ptr<std::atomic<unsigned short>> port) {
  std::shared_ptr<mcp::oauth_token_store> store = mcp::memory_token_store();
  if (std::any_of(servers.servers.begin(), servers.servers.end(), mcp::uses_oauth)) {
    auto sealer = pii::load_vault_sealer(settings);
    if (!sealer) return sealer.error();
    std::filesystem::path file = settings.get("OAUTH_TOKEN_FILE");
    if (file.empty()) file = std::filesystem::path(settings.get("STORE_PATH")).parent_path() / "oauth-tokens.json";
    store = mcp::file_token_store(
        file, [sealer = *sealer](const nlohmann::json& value) { return sealer.seal(value); },
        [sealer = *sealer](const nlohmann::json& stored) { return sealer.open(stored); });
  }
  mcp::oauth_options options;
  std::string configured = settings.get("OAUTH_REDIRECT_URL");
  if (!configured.empty()) {
    auto parsed = net::parse_url(configured);
    if (!parsed) return make_error(core::errc::invalid_setting, "OAUTH_REDIRECT_URL: " + parsed.error().message);
    options.redirect_uri = [configured] { return configured; };
  } else {
    // Before the listener is up (stdio mode has none), PORT is the best guess.
    const std::string fallback_port = settings.get("PORT");
    options.redirect_uri = [port, fallback_port] {
      const auto bound = port->load();
      return "http://127.0.0.1:" + (bound ? std::to_string(bound) : fallback_port) + "/oauth/callback";
    };
  }
  return mcp::create_oauth_manager(executor, std::move(http), std::move(store), std::move(options));
}

}  // namespace

result<std::unique_ptr<components>> build_components(asio::io_context& io, const core::settings& settings) {
  auto out = std::make_unique<components_impl>();
  auto http_config = http::load_http_config(settings);
  if (!http_config) return http_config.error();
  out->services_.limits = http_config->limits;
  auto metrics = std::make_shared<core::metrics_registry>();
  core::register_process_metrics(*metrics, core::version());
  out->services_.metrics = metrics;
  auto access = build_access_gate(settings, http_config->server.host, *metrics);
  if (!access) return access.error();
  out->services_.access = access->gate;
  out->access_warning_ = access->warning;
  out->access_notice_ = std::move(access->notice);

  auto docker_config = docker::load_docker_config(settings);
  if (!docker_config) return docker_config.error();
  auto sandbox_config = sandbox::load_sandbox_config(settings);
  if (!sandbox_config) return sandbox_config.error();
  auto exec_settings = execution::load_execution_settings(settings, sandbox_config->timeout);
  if (!exec_settings) return exec_settings.error();
  out->services_.limits.code_max_chars = static_cast<std::size_t>(sandbox_config->max_code_bytes);

  auto llm_config = llm::load_llm_config(settings);
  if (!llm_config) return llm_config.error();
  out->services_.health.push_back(
      llm::create_llm_health_source(*llm_config, missing_llm_setting(*llm_config, settings)));

  auto mcp_config = mcp::load_mcp_config(settings);
  if (!mcp_config) return mcp_config.error();
  auto censor = build_censor(settings);
  if (!censor) return censor.error();
  out->censor_ = *censor;

  // One outbound HTTP client for the LLM, remote MCP servers and OAuth.
  auto net_options = net::load_engine_options(settings);
  if (!net_options) return net_options.error();
  out->http_engine_ = net::start_engine(*net_options);
  auto http = net::create_http_client(out->http_engine_);
  auto oauth = build_oauth(io.get_executor(), settings, *mcp_config, http, out->listen_port_);
  if (!oauth) return oauth.error();
  out->services_.oauth = *oauth;
  auto remote = mcp::with_oauth(http, *oauth);

  auto executor = io.get_executor();
  auto opened_shared = open_shared_store(executor, settings, sandbox_config->owner, out->services_.health);
  if (!opened_shared) return opened_shared.error();
  const std::optional<shared_store_parts>& shared_store = *opened_shared;
  if (shared_store) {
    out->stop_upkeep_ = shared_store->stop_upkeep;
    exec_settings->service.directory = shared_store->directory;
  }
  out->registry_ = mcp::create_tool_registry(executor, *mcp_config, metrics, remote);
  out->services_.tools = out->registry_;
  for (auto& source : out->registry_->health_sources()) out->services_.health.push_back(source);
  out->engine_ = docker::create_engine_client(executor, *docker_config);
  out->backend_ = sandbox::create_docker_sandbox(executor, out->engine_, *sandbox_config);
  out->sandbox_health_ = std::make_shared<sandbox::sandbox_health>(out->engine_, sandbox_config->image);
  if (docker_config->endpoint.kind != docker::engine_endpoint::transport::unix_socket &&
      !exec_settings->pool.call_socket_dir.empty()) {
    // A remote engine cannot mount a socket of this host into its containers.
    core::log_info("the engine is remote ({}): sandboxes speak over their stdio, not a call socket",
                   docker_config->endpoint.describe());
    exec_settings->pool.call_socket_dir.clear();
  }
  // The tool policy of every call code makes; each task and session gets its own guard.
  auto policy_config = policy::load_policy_config(settings);
  if (!policy_config) return policy_config.error();
  auto guards = build_guards(*policy_config, out->censor_->detector_names(), out->registry_, out->services_.health);
  if (!guards) return guards.error();
  // One maker of the sandboxes' data filters, for the agent's tasks and the execution service's sessions.
  auto filters = std::make_shared<const execution::pii_filter_factory>(out->censor_, metrics, *guards);
  execution::register_exec_metrics(*metrics);
  for (const auto& kind : out->censor_->detector_names()) execution::pii_detection_counter(*metrics).with({kind});
  exec_settings->service.metrics = metrics;
  // Skills per user and workspaces per task (on the host, or in the shared store); the sandbox gets copies.
  auto skills_config = skills::load_skills_config(settings);
  if (!skills_config) return skills_config.error();
  auto stores = open_file_stores(*skills_config, shared_store ? shared_store->url : std::string());
  if (!stores) return stores.error();
  std::shared_ptr<skills::skill_library> library = stores->library;
  std::shared_ptr<skills::workspace_store> workspaces = stores->workspaces;
  out->services_.skills = library;
  out->services_.workspaces = workspaces;
  out->services_.blocking = out->background_.get_executor();
  out->sweeper_ = skills::start_sweeper(workspaces, executor, out->background_.get_executor(),
                                        skills_config->workspace.sweep_interval(), skills_config->workspace.retention);

  auto sandbox_files = skills::create_sandbox_files(library, workspaces);
  exec_settings->pool.files = sandbox_files;  // the examples go into each sandbox while it waits in the pool
  exec_settings->pool.blocking = out->background_.get_executor();
  out->pool_ = execution::create_warm_pool(executor, out->backend_, exec_settings->pool);
  execution::register_pool_metrics(*metrics, out->pool_);
  exec_settings->service.files = sandbox_files;
  exec_settings->service.blocking = out->background_.get_executor();
  auto tools = execution::registry_tools(out->registry_);
  out->execution_ = execution::create_execution_service(executor, out->pool_, tools, filters, exec_settings->service,
                                                        core::real_clock());
  out->services_.execution = out->execution_;
  auto face_settings = mcp_server::load_face_settings(settings);
  if (!face_settings) return face_settings.error();
  face_settings->face.code_max_chars = out->services_.limits.code_max_chars;
  face_settings->face.approval_timeout = policy_config->approval_timeout;
  if (shared_store) face_settings->face.replica = sandbox_config->owner;
  out->face_ = mcp_server::create_mcp_face(
      executor,
      {.tools = tools, .execution = out->execution_, .skills = library, .blocking = out->background_.get_executor()},
      face_settings->face);
  out->services_.mcp = out->face_;
  out->services_.sources = http::request_sources({.loopback_server = is_loopback_host(http_config->server.host),
                                                  .allowed_hosts = http_config->allowed_hosts,
                                                  .mcp_allowed_origins = std::move(face_settings->allowed_origins)});
  out->services_.health.push_back(out->sandbox_health_);
  out->services_.health.push_back(execution::pool_health(out->pool_));

  agent_inputs inputs{.pool = out->pool_,
                      .tools = tools,
                      .registry = out->registry_,
                      .censor = out->censor_,
                      .files = sandbox_files,
                      .exec_timeout = exec_settings->service.exec_timeout,
                      .limits = exec_settings->service.limits,
                      .metrics = metrics,
                      .filters = filters,
                      .approval_timeout = policy_config->approval_timeout,
                      .http_engine = out->http_engine_,
                      .store = shared_store ? shared_store->store : nullptr};
  auto agent = build_agent(executor, out->background_, settings, *llm_config, std::move(inputs));
  if (!agent) return agent.error();
  out->agent_ = agent->manager;
  out->stop_retention_ = agent->stop_retention;
  out->services_.agent = agent->manager;
  out->services_.agent_unavailable = agent->unavailable;
  for (auto& source : agent->health) out->services_.health.push_back(source);

  // MCP servers start in the background: the listener does not wait for them.
  core::spawn_logged(io.get_executor(), out->registry_->start(), "mcp: starting the servers");
  core::spawn_logged(io.get_executor(), out->sandbox_health_->refresh_every(10s), "sandbox health checks");
  core::spawn_logged(io.get_executor(), start_sandboxes(out->backend_, out->pool_), "sandbox: start-up");
  return std::unique_ptr<components>(std::move(out));
}

}  // namespace harness::app
