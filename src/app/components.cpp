#include "components.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/thread_pool.hpp>
#include "access_setup.hpp"
#include "agent_setup.hpp"
#include "tracing_setup.hpp"

#include "harness/core/errors.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/metrics.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/core/version.hpp"
#include "harness/core/with_deadline.hpp"
#include "harness/core/writable_dir.hpp"
#include "harness/docker/engine_client.hpp"
#include "harness/docker/errors.hpp"
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
#include "harness/sandbox/runtime_check.hpp"
#include "harness/sandbox/sandbox.hpp"
#include "harness/sandbox/sandbox_health.hpp"
#include "harness/secrets/oauth_tokens.hpp"
#include "harness/secrets/secret_store.hpp"
#include "harness/skills/sandbox_files.hpp"
#include "harness/skills/skill_library.hpp"
#include "harness/skills/workspace_store.hpp"
#include "harness/store/pg_files.hpp"
#include "harness/store/replica_upkeep.hpp"
#include "harness/store/session_directory.hpp"
#include "harness/store/store_config.hpp"
#include "harness/store/store_health.hpp"
#include "harness/telemetry/tracer.hpp"

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
    if (sandbox_health_) sandbox_health_->stop_refreshing();
    if (stop_retention_) stop_retention_();
    if (stop_upkeep_) stop_upkeep_();
    if (face_) co_await face_->shutdown();
    if (execution_) co_await execution_->shutdown();
    if (pool_) co_await pool_->shutdown();
    if (python_pool_) co_await python_pool_->shutdown();
    if (backend_) co_await backend_->shutdown();
    if (registry_) co_await registry_->stop();
    // The spans of the shutdown itself go too, unless the collector is slow.
    if (tracer_) co_await tracer_->shutdown(std::chrono::seconds(2));
    // Last: what still waits on an outbound request gets cancelled, and the
    // curl loop's thread ends before the process does.
    if (curl_loop_) net::stop_curl_loop(*curl_loop_);
  }

  http::services services_{core::real_clock()};
  bool access_warning_ = false;
  std::string access_notice_;
  std::shared_ptr<docker::engine_client> engine_;
  std::shared_ptr<net::curl_loop> curl_loop_;  // outbound HTTP: LLM, remote MCP servers, OAuth
  std::shared_ptr<telemetry::tracer> tracer_;  // null: tracing off
  // The port the listener got (PORT may be 0), for OAuth's default redirect URI.
  std::shared_ptr<std::atomic<unsigned short>> listen_port_ = std::make_shared<std::atomic<unsigned short>>(0);
  std::shared_ptr<sandbox::sandbox_backend> backend_;
  std::shared_ptr<sandbox::sandbox_health> sandbox_health_;
  std::shared_ptr<execution::warm_pool> pool_;         // JavaScript sandboxes (the agent's too)
  std::shared_ptr<execution::warm_pool> python_pool_;  // Python sandboxes, for /execute and the face
  std::shared_ptr<execution::execution_service> execution_;
  std::shared_ptr<mcp_server::mcp_face> face_;
  std::shared_ptr<mcp::tool_registry> registry_;
  std::shared_ptr<const pii::pii_censor> censor_;
  std::shared_ptr<agent::agent_manager> agent_;
  std::unique_ptr<skills::sweeper> sweeper_;
  std::function<void()> stop_retention_;
  std::function<void()> stop_upkeep_;  // the replica upkeep's, with STORE_URL
  // Blocking work (skills and workspace files, retention deletes); its destructor stops and joins it.
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
                                      std::shared_ptr<execution::warm_pool> pool,
                                      std::shared_ptr<execution::warm_pool> python_pool) {
  auto swept = co_await backend->sweep(nullptr);
  if (swept && *swept > 0) core::log_info("removed {} sandbox container(s) left by an earlier run", *swept);
  if (!swept) core::log_warn("could not sweep old sandbox containers: {}", swept.error().describe());
  pool->start();
  python_pool->start();
}

using execution::guard_factory;

// What replicas sharing one store (STORE_URL) run beside the agent.
struct shared_store_parts {
  std::shared_ptr<store::task_store> store;
  std::shared_ptr<store::session_directory> directory;
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
  auto opened = store::open_task_store(*config, owner);
  if (!opened) return opened.error();
  health.push_back(store::store_health(*opened));
  shared_store_parts out;
  out.store = *opened;
  out.directory = store::create_session_directory(out.store, owner, *lease);
  out.stop_upkeep = store::start_replica_upkeep(executor, core::real_clock(), out.store, owner, *lease);
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
    auto opened =
        policy::open_policy_file(config.file, core::real_clock(), {.known_kinds = kinds, .fallback = config.fallback});
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
  return guard_factory([source, annotations](const policy::caller_identity& who) {
    return std::make_unique<policy::call_guard>(source, annotations, who);
  });
}

// OAuth for remote MCP servers: tokens in a file sealed with the vault key,
// and the browser sent back to this server's GET /oauth/callback.
// The token file is opened only when some server uses OAuth: a server
// without one needs no vault key for it.
result<std::shared_ptr<mcp::oauth_manager>> build_oauth(const asio::any_io_executor& executor,
                                                        const core::settings& settings, const mcp::mcp_config& servers,
                                                        std::shared_ptr<net::http_client> http,
                                                        std::shared_ptr<std::atomic<unsigned short>> port,
                                                        std::shared_ptr<mcp::user_token_store> user_tokens) {
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
  return mcp::create_oauth_manager(executor, core::real_clock(), std::move(http), std::move(store), std::move(options),
                                   std::move(user_tokens));
}

// What one build step hands to the later ones.
struct wiring {
  std::shared_ptr<core::metrics_registry> metrics;
  // The server's store (SQLite, or the shared one with STORE_URL): tasks, and users' secrets.
  std::shared_ptr<store::task_store> store;
  std::shared_ptr<secrets::secret_store> secrets;
  std::shared_ptr<mcp::user_token_store> oauth_tokens;  // users' tokens of user-scoped remote servers
  std::shared_ptr<bridge::tool_gateway> tools;          // the registry, as sandbox code reaches it
  // The sandboxes' data filters (censor, tool policy), for the agent's tasks and the execution service's sessions.
  std::shared_ptr<const execution::pii_filter_factory> filters;
  std::chrono::milliseconds approval_timeout{0};
  std::shared_ptr<execution::sandbox_files> files;
  std::shared_ptr<skills::skill_library> library;
  std::optional<shared_store_parts> shared_store;  // with STORE_URL
};

// The HTTP side: limits, the metrics registry and who may call.
result<http::http_config> build_front(components_impl& out, wiring& w, const core::settings& settings) {
  auto http_config = http::load_http_config(settings);
  if (!http_config) return http_config.error();
  out.services_.limits = http_config->limits;
  w.metrics = std::make_shared<core::metrics_registry>();
  core::register_process_metrics(*w.metrics, core::version());
  out.services_.metrics = w.metrics;
  auto access = build_access_gate(settings, http_config->server.host, *w.metrics);
  if (!access) return access.error();
  out.services_.access = access->gate;
  out.access_warning_ = access->warning;
  out.access_notice_ = std::move(access->notice);
  return std::move(*http_config);
}

struct sandbox_configs {
  docker::docker_config docker{};
  sandbox::sandbox_config sandbox{};
  execution::execution_settings execution{};
};

result<sandbox_configs> load_sandbox_configs(components_impl& out, const core::settings& settings) {
  sandbox_configs configs;
  auto docker_config = docker::load_docker_config(settings);
  if (!docker_config) return docker_config.error();
  configs.docker = std::move(*docker_config);
  auto sandbox_config = sandbox::load_sandbox_config(settings);
  if (!sandbox_config) return sandbox_config.error();
  configs.sandbox = std::move(*sandbox_config);
  auto exec_settings = execution::load_execution_settings(settings, configs.sandbox.timeout);
  if (!exec_settings) return exec_settings.error();
  configs.execution = std::move(*exec_settings);
  out.services_.limits.code_max_chars = static_cast<std::size_t>(configs.sandbox.max_code_bytes);
  return configs;
}

// The LLM's settings and its /health source (no LLM configured is no failure).
result<llm::llm_config> load_llm(components_impl& out, const core::settings& settings) {
  auto llm_config = llm::load_llm_config(settings);
  if (!llm_config) return llm_config.error();
  out.services_.health.push_back(
      llm::create_llm_health_source(*llm_config, missing_llm_setting(*llm_config, settings)));
  return std::move(*llm_config);
}

// One outbound HTTP client for the LLM, remote MCP servers and OAuth; the
// remote MCP servers reach it through OAuth.
result<mcp::remote_access> build_outbound(components_impl& out, const asio::any_io_executor& executor,
                                          const core::settings& settings, const mcp::mcp_config& servers,
                                          std::shared_ptr<mcp::user_token_store> user_tokens) {
  auto net_options = net::load_curl_loop_options(settings);
  if (!net_options) return net_options.error();
  out.curl_loop_ = net::start_curl_loop(*net_options);
  auto http = net::create_http_client(out.curl_loop_);
  auto oauth = build_oauth(executor, settings, servers, http, out.listen_port_, std::move(user_tokens));
  if (!oauth) return oauth.error();
  out.services_.oauth = *oauth;
  return mcp::with_oauth(http, *oauth);
}

// The store every part shares: the replicas' one (STORE_URL), else this
// server's SQLite file; and users' secrets in it, sealed with the vault key.
status open_store(components_impl& out, wiring& w, const core::settings& settings, const std::string& owner) {
  if (w.shared_store) {
    w.store = w.shared_store->store;
  } else {
    auto config = store::load_store_config(settings);
    if (!config) return config.error();
    auto opened = store::open_task_store(*config, owner);
    if (!opened) return opened.error();
    w.store = *opened;
    out.services_.health.push_back(store::store_health(w.store));
  }
  auto loaded = pii::load_vault_sealer(settings);
  if (!loaded) return loaded.error();
  auto sealer = std::make_shared<const pii::vault_sealer>(std::move(*loaded));
  w.oauth_tokens = secrets::stored_oauth_tokens(w.store, sealer, core::real_clock());
  // A changed secret restarts the user's instances (the registry is made next).
  w.secrets = std::make_shared<secrets::secret_store>(
      w.store, sealer, core::real_clock(), [&registry = out.registry_](const std::string& user, const std::string&) {
        if (registry) registry->restart_user_instances(user);
      });
  out.services_.secrets = w.secrets;
  return {};
}

void build_tool_registry(components_impl& out, wiring& w, const asio::any_io_executor& executor,
                         const mcp::mcp_config& servers, mcp::remote_access remote) {
  out.registry_ =
      mcp::create_tool_registry(executor, core::real_clock(), servers, w.metrics, std::move(remote), w.secrets);
  out.services_.tools = out.registry_;
  for (auto& source : out.registry_->health_sources()) out.services_.health.push_back(source);
  w.tools = execution::registry_tools(out.registry_);
}

// The Docker engine and the sandbox backend on it.
void build_sandboxes(components_impl& out, const asio::any_io_executor& executor, sandbox_configs& configs) {
  out.engine_ = docker::create_engine_client(executor, configs.docker);
  out.backend_ = sandbox::create_docker_sandbox(executor, out.engine_, configs.sandbox);
  out.sandbox_health_ =
      std::make_shared<sandbox::sandbox_health>(out.engine_, configs.sandbox.image, configs.sandbox.runtime);
  if (configs.docker.endpoint.kind != docker::engine_endpoint::transport::unix_socket &&
      !configs.execution.pool.call_socket_dir.empty()) {
    // A remote engine cannot mount a socket of this host into its containers.
    core::log_info("the engine is remote ({}): sandboxes speak over their stdio, not a call socket",
                   configs.docker.endpoint.describe());
    configs.execution.pool.call_socket_dir.clear();
  }
}

// GET /info within five seconds; docker_timeout when the engine did not answer.
asio::awaitable<result<sandbox::runtime_check>> ask_runtime(docker::engine_client& engine, std::string runtime) {
  auto asking = sandbox::inspect_runtime(engine, std::move(runtime));
  auto answered =
      co_await core::with_deadline(core::real_clock(), std::move(asking), core::real_clock().steady_now() + 5s);
  if (!answered) co_return make_error(docker::errc::timeout, "the Docker engine did not answer GET /info within 5 s");
  co_return std::move(*answered);
}

// SANDBOX_RUNTIME names a runtime the engine must list: with one it does not,
// every sandbox would fail, so that is a start-up failure (one line, exit
// code 2) naming the fix. An engine that does not answer is not: the pool
// waits for it and /health says why. Runs `io` until the engine answered
// (the listener is not open yet; at most a few seconds).
status check_sandbox_runtime(asio::io_context& io, docker::engine_client& engine, const std::string& runtime) {
  if (runtime.empty()) return {};
  std::optional<result<sandbox::runtime_check>> answer;
  asio::co_spawn(io, ask_runtime(engine, runtime),
                 [&answer](std::exception_ptr failure, result<sandbox::runtime_check> checked) {
                   if (failure) checked = make_error(core::errc::startup_failed, "GET /info failed");
                   answer.emplace(std::move(checked));
                 });
  while (!answer && io.run_one() > 0) {
  }
  if (io.stopped()) io.restart();
  if (!answer || !*answer) {
    core::log_warn("could not ask the Docker engine whether it has the runtime {} ({}); the pool will keep trying",
                   runtime, answer ? answer->error().describe() : "no answer");
    return {};
  }
  if (!(*answer)->registered) return sandbox::runtime_missing(**answer);
  core::log_info("sandboxes run under {}{}", runtime, (*answer)->detail.value("gvisor", false) ? " (gVisor)" : "");
  return {};
}

// The tool policy of every call code makes (each task and session gets its
// own guard) and the one maker of the sandboxes' data filters.
status build_data_path(components_impl& out, wiring& w, const core::settings& settings) {
  auto policy_config = policy::load_policy_config(settings);
  if (!policy_config) return policy_config.error();
  w.approval_timeout = policy_config->approval_timeout;
  auto guards = build_guards(*policy_config, out.censor_->detector_names(), out.registry_, out.services_.health);
  if (!guards) return guards.error();
  w.filters = std::make_shared<const execution::pii_filter_factory>(out.censor_, w.metrics, *guards);
  execution::register_exec_metrics(*w.metrics);
  for (const auto& kind : out.censor_->detector_names()) execution::pii_detection_counter(*w.metrics).with({kind});
  return {};
}

// Skills per user and workspaces per task (on the host, or in the shared
// store); the sandbox gets copies.
status build_files(components_impl& out, wiring& w, const asio::any_io_executor& executor,
                   const core::settings& settings) {
  auto skills_config = skills::load_skills_config(settings);
  if (!skills_config) return skills_config.error();
  auto stores = open_file_stores(*skills_config, w.shared_store ? w.shared_store->url : std::string());
  if (!stores) return stores.error();
  w.library = stores->library;
  std::shared_ptr<skills::workspace_store> workspaces = stores->workspaces;
  out.services_.skills = w.library;
  out.services_.workspaces = workspaces;
  out.services_.blocking = out.background_.get_executor();
  out.sweeper_ = skills::start_sweeper(workspaces, core::real_clock(), executor, out.background_.get_executor(),
                                       skills_config->workspace.sweep_interval(), skills_config->workspace.retention);
  w.files = skills::create_sandbox_files(w.library, workspaces);
  return {};
}

// The warm pool and the service of POST /execute on it.
void build_execution(components_impl& out, const wiring& w, const asio::any_io_executor& executor,
                     execution::execution_settings& exec) {
  exec.service.metrics = w.metrics;
  for (auto* pool : {&exec.pool, &exec.python_pool}) {
    pool->files = w.files;  // the examples go into each sandbox while it waits in the pool
    pool->blocking = out.background_.get_executor();
    pool->tracer = out.tracer_;
  }
  out.pool_ = execution::create_warm_pool(executor, core::real_clock(), out.backend_, exec.pool);
  out.python_pool_ = execution::create_warm_pool(executor, core::real_clock(), out.backend_, exec.python_pool);
  execution::register_pool_metrics(*w.metrics, {out.pool_, out.python_pool_});
  exec.service.files = w.files;
  exec.service.blocking = out.background_.get_executor();
  out.execution_ = execution::create_execution_service(executor, {out.pool_, out.python_pool_}, w.tools, w.filters,
                                                       exec.service, core::real_clock());
  out.services_.execution = out.execution_;
}

// The MCP face (/mcp) over the execution service, and where requests may come from.
status build_face(components_impl& out, const wiring& w, const asio::any_io_executor& executor,
                  const core::settings& settings, const http::http_config& http_config, const std::string& owner) {
  auto face_settings = mcp_server::load_face_settings(settings);
  if (!face_settings) return face_settings.error();
  face_settings->face.code_max_chars = out.services_.limits.code_max_chars;
  face_settings->face.approval_timeout = w.approval_timeout;
  if (w.shared_store) face_settings->face.replica = owner;
  out.face_ = mcp_server::create_mcp_face(executor, core::real_clock(),
                                          {.tools = w.tools,
                                           .execution = out.execution_,
                                           .skills = w.library,
                                           .blocking = out.background_.get_executor(),
                                           // run_task only when tasks can start (an LLM is configured).
                                           .agent = out.services_.agent_unavailable.empty() ? out.agent_ : nullptr,
                                           .tracer = out.tracer_},
                                          face_settings->face);
  out.services_.mcp = out.face_;
  out.services_.sources = http::request_sources({.loopback_server = is_loopback_host(http_config.server.host),
                                                 .allowed_hosts = http_config.allowed_hosts,
                                                 .mcp_allowed_origins = std::move(face_settings->allowed_origins)});
  return {};
}

status wire_agent(components_impl& out, const wiring& w, const asio::any_io_executor& executor,
                  const core::settings& settings, const llm::llm_config& llm_config,
                  const execution::execution_settings& exec) {
  agent_inputs inputs{.pool = out.pool_,
                      .python_pool = out.python_pool_,
                      .tools = w.tools,
                      .registry = out.registry_,
                      .censor = out.censor_,
                      .files = w.files,
                      .exec_timeout = exec.service.exec_timeout,
                      .limits = exec.service.limits,
                      .metrics = w.metrics,
                      .filters = w.filters,
                      .approval_timeout = w.approval_timeout,
                      .curl_loop = out.curl_loop_,
                      .store = w.store};
  auto agent = build_agent(executor, out.background_, settings, llm_config, std::move(inputs));
  if (!agent) return agent.error();
  out.agent_ = agent->manager;
  out.stop_retention_ = agent->stop_retention;
  out.services_.agent = agent->manager;
  out.services_.agent_unavailable = agent->unavailable;
  for (auto& source : agent->health) out.services_.health.push_back(source);
  return {};
}

// MCP servers, health checks and the sandboxes start in the background: the
// listener does not wait for them.
void start_background_work(asio::io_context& io, components_impl& out) {
  core::spawn_logged(io.get_executor(), out.registry_->start(), "mcp: starting the servers");
  out.sandbox_health_->start_refreshing(io.get_executor(), core::real_clock(), 10s);
  core::spawn_logged(io.get_executor(), start_sandboxes(out.backend_, out.pool_, out.python_pool_),
                     "sandbox: start-up");
}

}  // namespace

// The steps run in this order, so a start-up with a bad setting reports the
// same one first whatever else is wrong.
result<std::unique_ptr<components>> build_components(asio::io_context& io, const core::settings& settings) {
  auto out = std::make_unique<components_impl>();
  auto executor = io.get_executor();
  wiring w;
  auto http_config = build_front(*out, w, settings);
  if (!http_config) return http_config.error();
  auto configs = load_sandbox_configs(*out, settings);
  if (!configs) return configs.error();
  auto llm_config = load_llm(*out, settings);
  if (!llm_config) return llm_config.error();
  auto mcp_config = mcp::load_mcp_config(settings);
  if (!mcp_config) return mcp_config.error();
  auto censor = build_censor(settings);
  if (!censor) return censor.error();
  out->censor_ = *censor;
  auto shared_store = open_shared_store(executor, settings, configs->sandbox.owner, out->services_.health);
  if (!shared_store) return shared_store.error();
  w.shared_store = std::move(*shared_store);
  if (w.shared_store) {
    out->stop_upkeep_ = w.shared_store->stop_upkeep;
    configs->execution.service.directory = w.shared_store->directory;
  }
  if (auto opened = open_store(*out, w, settings, configs->sandbox.owner); !opened) return opened.error();
  auto remote = build_outbound(*out, executor, settings, *mcp_config, w.oauth_tokens);
  if (!remote) return remote.error();
  auto tracer = build_tracer(executor, settings, out->curl_loop_, w.metrics);
  if (!tracer) return tracer.error();
  out->tracer_ = *tracer;
  out->services_.tracer = *tracer;
  build_tool_registry(*out, w, executor, *mcp_config, std::move(*remote));
  build_sandboxes(*out, executor, *configs);
  if (auto runtime = check_sandbox_runtime(io, *out->engine_, configs->sandbox.runtime); !runtime) {
    return runtime.error();
  }
  if (auto data_path = build_data_path(*out, w, settings); !data_path) return data_path.error();
  if (auto files = build_files(*out, w, executor, settings); !files) return files.error();
  build_execution(*out, w, executor, configs->execution);
  out->services_.health.push_back(out->sandbox_health_);
  out->services_.health.push_back(execution::pool_health(out->pool_));
  out->services_.health.push_back(execution::pool_health(out->python_pool_, "pool.python"));
  if (auto agent = wire_agent(*out, w, executor, settings, *llm_config, configs->execution); !agent) {
    return agent.error();
  }
  // After the agent: the face offers its runs (run_task).
  auto face = build_face(*out, w, executor, settings, *http_config, configs->sandbox.owner);
  if (!face) return face.error();
  start_background_work(io, *out);
  return std::unique_ptr<components>(std::move(out));
}

}  // namespace harness::app
