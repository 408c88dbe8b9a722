#include "user_servers.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "harness/core/ids.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/core/when_all.hpp"
#include "harness/mcp/errors.hpp"
#include "http_authorizer.hpp"

namespace harness::mcp::detail {
namespace asio = boost::asio;
using nlohmann::json;

namespace {

std::string fill_in(std::string text, const std::string& user) {
  for (auto at = text.find(user_id_placeholder); at != std::string::npos;
       at = text.find(user_id_placeholder, at + user.size())) {
    text.replace(at, user_id_placeholder.size(), user);
  }
  return text;
}

// The id becomes part of command lines, paths and URLs: only what the front
// door accepts as a user id anyway ([A-Za-z0-9._-], not "." or "..").
bool fits_in_a_path(const std::string& user) {
  return core::is_safe_id(user, 64) && user != "." && user != "..";
}

// Creates the folders a user's instance needs (its root, its data file's folder).
status make_directories(const server_config& server) {
  for (const auto& dir : server.directories) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (!ec) std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
    if (ec) {
      return make_error(mcp::errc::spawn_failed,
                        "cannot create the folder " + dir + " for MCP server " + server.name + ": " + ec.message(),
                        "check the server's \"directories\" in MCP_CONFIG and the harness's permissions there");
    }
  }
  return {};
}

const char* transport_name(transport_kind kind) {
  return kind == transport_kind::stdio ? "stdio" : kind == transport_kind::sse ? "sse" : "http";
}

class server_health final : public core::health_source {
 public:
  server_health(std::weak_ptr<const user_servers> pool, std::string server)
      : pool_(std::move(pool)), server_(std::move(server)) {}
  std::string name() const override { return "mcp." + server_; }
  core::component_health check() const override {
    core::component_health health;
    // Whether it works is a matter of each user's instance: the server as a
    // whole never makes the harness degraded.
    health.required = false;
    auto pool = pool_.lock();
    health.detail = pool ? pool->status(server_) : json{{"state", "stopped"}};
    return health;
  }

 private:
  std::weak_ptr<const user_servers> pool_;
  std::string server_;
};

class cap_health final : public core::health_source {
 public:
  cap_health(std::weak_ptr<const user_servers> pool, std::function<json()> describe)
      : pool_(std::move(pool)), describe_(std::move(describe)) {}
  std::string name() const override { return "mcp.user_instances"; }
  core::component_health check() const override {
    core::component_health health;
    health.required = false;
    if (pool_.expired()) {
      health.detail = {{"state", "stopped"}};
      return health;
    }
    health.detail = describe_();
    // Full, and every instance in a call: a new user's call is refused now.
    health.up = !health.detail.value("full", false);
    return health;
  }

 private:
  std::weak_ptr<const user_servers> pool_;
  std::function<json()> describe_;
};

}  // namespace

server_config for_user(const server_config& server, const std::string& user) {
  server_config out = server;
  for (auto& arg : out.args) arg = fill_in(std::move(arg), user);
  for (auto& [name, value] : out.env) value = fill_in(std::move(value), user);
  for (auto& [name, value] : out.headers) value = fill_in(std::move(value), user);
  for (auto& dir : out.directories) dir = fill_in(std::move(dir), user);
  out.cwd = fill_in(std::move(out.cwd), user);
  out.url = fill_in(std::move(out.url), user);
  out.user = user;
  // One user's instance down is that user's problem, not the harness's.
  out.required = false;
  return out;
}

instance_use::instance_use(std::shared_ptr<user_instance> instance, core::clock& clock)
    : instance_(std::move(instance)), clock_(&clock) {
  ++instance_->calls;
}

instance_use::instance_use(instance_use&& other) noexcept
    : instance_(std::move(other.instance_)), clock_(other.clock_) {}

instance_use::~instance_use() {
  if (!instance_) return;
  --instance_->calls;
  instance_->last_used = clock_->steady_now();
}

user_servers::user_servers(asio::any_io_executor executor, core::clock& clock, std::vector<server_config> servers,
                           client_limits limits, user_server_limits user_limits, remote_access remote,
                           std::shared_ptr<secret_source> secrets)
    : executor_(std::move(executor)),
      clock_(clock),
      limits_(limits),
      user_limits_(user_limits),
      remote_(std::move(remote)),
      secrets_(std::move(secrets)),
      reaper_(clock.make_timer(executor_)) {
  for (auto& server : servers) templates_.emplace(server.name, std::move(server));
}

std::vector<std::string> user_servers::names() const {
  std::vector<std::string> out;
  for (const auto& [name, server] : templates_) out.push_back(name);
  return out;
}

void user_servers::start() {
  if (templates_.empty()) return;
  core::spawn_logged(executor_, reap_loop(), "mcp: stopping idle user instances");
}

asio::awaitable<void> user_servers::stop() {
  auto self = shared_from_this();
  stopping_ = true;
  reaper_->cancel();
  // Held here until every stop has run: an awaitable starts only when awaited.
  auto stopping = std::exchange(instances_, {});
  std::vector<asio::awaitable<void>> stops;
  for (auto& [key, instance] : stopping) {
    if (instance->server) stops.push_back(instance->server->stop());
  }
  co_await core::when_all(std::move(stops));
  // Instances retired before (idle, disconnected, evicted) may still be stopping: their requests
  // must not outlive the registry's stop, which the caller takes as "nothing of mine runs now".
  if (retiring_ > 0) {
    all_retired_ = std::make_unique<core::async_event>(executor_);
    co_await all_retired_->wait();
  }
}

asio::awaitable<result<instance_use>> user_servers::use(std::string server, std::string user) {
  auto self = shared_from_this();
  if (!has(server)) co_return make_error(mcp::errc::unknown_tool, "no user-scoped MCP server named " + server);
  if (user.empty()) {
    co_return make_error(mcp::errc::server_unavailable,
                         "MCP server " + server + " runs one instance per user, and this request acts for no user",
                         "call it from a task, /execute or the MCP face, which act for a user");
  }
  if (!fits_in_a_path(user)) {
    co_return make_error(mcp::errc::invalid_arguments, "the user id cannot name an instance of MCP server " + server,
                         "user ids are 1-64 characters of letters, digits, '.', '_' and '-'");
  }
  if (stopping_) co_return make_error(mcp::errc::server_unavailable, "the harness is stopping");
  auto found = instances_.find({server, user});
  if (found == instances_.end()) {
    auto launched = co_await launch(server, user);
    if (!launched) co_return launched.error();
    co_return instance_use(std::move(*launched), clock_);
  }
  auto instance = found->second;
  {
    instance_use use(instance, clock_);  // busy while it starts: not evicted under us
    co_await instance->started.wait();
    if (instance->failure) co_return *instance->failure;
    if (!co_await retire_if_authorized_elsewhere(server, user, instance)) co_return std::move(use);
  }
  auto launched = co_await launch(server, user);
  if (!launched) co_return launched.error();
  co_return instance_use(std::move(*launched), clock_);
}

asio::awaitable<bool> user_servers::retire_if_authorized_elsewhere(const std::string& server, const std::string& user,
                                                                   const std::shared_ptr<user_instance>& instance) {
  auto self = shared_from_this();
  if (!instance->server || instance->server->state() != server_state::needs_authorization) co_return false;
  auto authorizer = instance->server->authorizer();
  if (!authorizer) co_return false;
  // Authorized already (the user approved through this replica, and its
  // restart has not run yet), or tokens kept since through another.
  auto authorized = [&] { return authorizer->describe().value("state", "") == "authorized"; };
  if (!authorized()) {
    co_await authorizer->reload();
    if (!authorized()) co_return false;
  }
  auto found = instances_.find({server, user});
  // Another call may have done it meanwhile; a call still in it keeps it (it fails as it would have).
  if (found == instances_.end() || found->second != instance || instance->calls > 1) co_return false;
  retire(found, "its user has authorized it");
  co_return true;
}

asio::awaitable<result<std::shared_ptr<user_instance>>> user_servers::launch(const std::string& server,
                                                                             const std::string& user) {
  auto self = shared_from_this();
  if (instances_.size() >= user_limits_.max_instances && !evict_one()) {
    ++refused_;
    co_return make_error(mcp::errc::user_servers_busy,
                         "all " + std::to_string(user_limits_.max_instances) +
                             " instances of user-scoped MCP servers are in a call; none can be started for " + server +
                             " now",
                         "try again shortly, or raise MCP_MAX_USER_SERVERS");
  }
  // In the pool before the first await: a second call of the user waits for this start.
  auto instance = std::make_shared<user_instance>(executor_);
  instance->last_used = clock_.steady_now();
  instances_[{server, user}] = instance;
  instance_use starting(instance, clock_);  // not idle, not evictable, until its start has settled
  auto config = co_await configure(server, user, *instance);
  if (config && stopping_) config = make_error(mcp::errc::server_unavailable, "the harness is stopping");
  if (config) {
    if (auto made = make_directories(*config); !made) config = made.error();
  }
  if (!config) {
    abandon(server, user, instance, config.error());
    co_return config.error();
  }
  // Every instance of the server shares what era it spoke (the next skips the probe).
  auto& era = eras_[server];
  if (!era) era = std::make_shared<bool>(false);
  instance->server = std::make_shared<server_supervisor>(executor_, clock_, std::move(*config), limits_, remote_, era);
  co_await instance->server->start();
  instance->started.set();
  remember_tools(server, *instance);
  co_return instance;
}

asio::awaitable<result<server_config>> user_servers::configure(const std::string& server, const std::string& user,
                                                               user_instance& instance) {
  auto self = shared_from_this();
  auto config = for_user(templates_.at(server), user);
  auto names = secret_names(config);
  if (!names) co_return names.error();
  if (names->empty()) co_return config;
  if (!secrets_) {
    co_return make_error(mcp::errc::secret_missing,
                         "MCP server " + server + " needs users' secrets, and this harness keeps none",
                         "run the harness with its store (STORE_PATH or STORE_URL)");
  }
  auto values = co_await secrets_->values(user, *names);
  if (!values) co_return values.error();
  auto filled = fill_secrets(std::move(config), *values, user);
  if (!filled) co_return filled.error();
  auto mask = std::make_shared<const secret_mask>(*values);
  filled->redact = [mask](std::string text) { return mask->censor(std::move(text)); };
  instance.mask = std::move(mask);
  co_return filled;
}

void user_servers::abandon(const std::string& server, const std::string& user,
                           const std::shared_ptr<user_instance>& instance, const error& why) {
  auto found = instances_.find({server, user});
  if (found != instances_.end() && found->second == instance) instances_.erase(found);
  instance->failure = why;
  instance->started.set();
}

void user_servers::restart_user(const std::string& user) {
  for (auto it = instances_.begin(); it != instances_.end();) {
    auto next = std::next(it);
    if (it->first.second == user) {
      auto& instance = *it->second;
      instance.stale = true;
      if (instance.calls == 0 && instance.started.is_set()) retire(it, "its user's secrets changed");
    }
    it = next;
  }
}

std::vector<std::string> user_servers::oauth_servers() const {
  std::vector<std::string> out;
  for (const auto& [name, server] : templates_) {
    if (uses_oauth(server)) out.push_back(name);
  }
  return out;
}

std::shared_ptr<http_authorizer> user_servers::authorizer_of(const std::string& server, const std::string& user) {
  auto found = instances_.find({server, user});
  if (found != instances_.end() && found->second->server && found->second->server->authorizer()) {
    return found->second->server->authorizer();
  }
  return remote_.authorizer_for ? remote_.authorizer_for(for_user(templates_.at(server), user)) : nullptr;
}

namespace {

harness::status check_connection(const std::map<std::string, server_config>& templates, const std::string& server,
                                 const std::string& user) {
  auto it = templates.find(server);
  if (it == templates.end() || !uses_oauth(it->second)) {
    return make_error(mcp::errc::no_such_connection, "no user-scoped remote MCP server with OAuth is named " + server,
                      "GET /connections lists the servers each user connects their own account to");
  }
  if (!fits_in_a_path(user)) {
    return make_error(mcp::errc::invalid_arguments, "the user id cannot name a connection",
                      "user ids are 1-64 characters of letters, digits, '.', '_' and '-'");
  }
  return {};
}

// The authorizer's own states, as a user reads their connection.
json connection_view(const std::string& server, const json& oauth, bool ready) {
  json out = {{"server", server}};
  const std::string state = oauth.value("state", std::string("not_authorized"));
  if (ready || state == "authorized") {
    out["state"] = "connected";
    if (oauth.contains("scopes")) out["scopes"] = oauth["scopes"];
    if (oauth.contains("expiresAt")) out["expiresAt"] = oauth["expiresAt"];
  } else if (state == "failed") {
    out["state"] = "error";
    out["error"] = oauth.value("error", std::string());
  } else {
    out["state"] = "needs_authorization";
    if (oauth.contains("authorizationUrl")) {
      out["authorizationUrl"] = oauth["authorizationUrl"];
      out["expiresAt"] = oauth.value("authorizationExpiresAt", std::string());
    } else {
      out["connect"] = "POST /connections/" + server;
    }
  }
  return out;
}

}  // namespace

asio::awaitable<json> user_servers::connection(std::string server, std::string user) {
  auto self = shared_from_this();
  auto authorizer = authorizer_of(server, user);
  if (!authorizer) co_return json{{"server", server}, {"state", "error"}, {"error", "OAuth is not available"}};
  // Tokens kept since (another replica's), the ones kept at all, or none any more.
  const bool changed = co_await authorizer->reload();
  auto found = instances_.find({server, user});
  if (changed && found != instances_.end() && found->second->started.is_set() &&
      authorizer->describe().value("state", "") != "authorized") {
    retire(found, "its user disconnected it through another replica");
    found = instances_.end();
  }
  const bool ready =
      found != instances_.end() && found->second->server && found->second->server->state() == server_state::ready;
  co_return connection_view(server, authorizer->describe(), ready);
}

asio::awaitable<result<json>> user_servers::connect(std::string server, std::string user) {
  auto self = shared_from_this();
  if (auto ok = check_connection(templates_, server, user); !ok) co_return ok.error();
  auto use = co_await this->use(server, user);
  // Waiting for the user is what a connection starts with; anything else is its answer.
  if (!use && use.error().code != mcp::errc::needs_authorization && use.error().code != mcp::errc::server_unavailable) {
    co_return use.error();
  }
  co_return co_await connection(server, user);
}

asio::awaitable<harness::status> user_servers::disconnect(std::string server, std::string user) {
  auto self = shared_from_this();
  if (auto ok = check_connection(templates_, server, user); !ok) co_return ok;
  auto authorizer = authorizer_of(server, user);
  if (auto found = instances_.find({server, user}); found != instances_.end() && found->second->started.is_set()) {
    retire(found, "its user disconnected it");
  }
  if (authorizer) co_await authorizer->forget();
  co_return harness::status{};
}

bool user_servers::evict_one() {
  auto idlest = instances_.end();
  for (auto it = instances_.begin(); it != instances_.end(); ++it) {
    const auto& instance = *it->second;
    if (instance.calls > 0 || !instance.started.is_set()) continue;
    if (idlest == instances_.end() || instance.last_used < idlest->second->last_used) idlest = it;
  }
  if (idlest == instances_.end()) return false;
  ++evicted_;
  retire(idlest, "to make room for another user's");
  return true;
}

void user_servers::retire(std::map<instance_key, std::shared_ptr<user_instance>>::iterator it, const char* why) {
  auto instance = it->second;
  const std::string server = it->first.first;
  instances_.erase(it);
  core::log_info("mcp {}: stopping a user's instance ({}); {} instance(s) left", server, why, instances_.size());
  ++retiring_;
  core::spawn_logged(executor_, finish_retiring(std::move(instance)), "mcp " + server + ": stopping a user's instance");
}

asio::awaitable<void> user_servers::finish_retiring(std::shared_ptr<user_instance> instance) {
  auto self = shared_from_this();
  struct counted_out {  // also when the stop throws: stop() must not wait for it forever
    user_servers* pool;
    ~counted_out() {
      if (--pool->retiring_ == 0 && pool->all_retired_) pool->all_retired_->set();
    }
  } counted{this};
  if (instance->server) co_await instance->server->stop();
}

asio::awaitable<void> user_servers::reap_loop() {
  auto self = shared_from_this();
  const auto period = std::clamp<std::chrono::milliseconds>(user_limits_.idle / 4, std::chrono::milliseconds(50),
                                                            std::chrono::milliseconds(30000));
  while (!stopping_) {
    reaper_->expires_at(clock_.steady_now() + period);
    co_await reaper_->wait();
    if (stopping_) break;
    const auto now = clock_.steady_now();
    for (auto it = instances_.begin(); it != instances_.end();) {
      const auto& instance = *it->second;
      auto next = std::next(it);
      if (instance.calls == 0 && instance.started.is_set() && instance.stale) {
        retire(it, "its user's secrets changed");
      } else if (instance.calls == 0 && instance.started.is_set() && now - instance.last_used >= user_limits_.idle) {
        ++stopped_idle_;
        retire(it, "idle");
      }
      it = next;
    }
  }
}

namespace {

asio::awaitable<void> start_for(std::shared_ptr<user_servers> pool, std::string server, std::string user) {
  auto use = co_await pool->use(std::move(server), std::move(user));
  (void)use;  // a failure shows in the listing (no tools) and in /health
}

}  // namespace

asio::awaitable<void> user_servers::learn_tools(std::string user) {
  auto self = shared_from_this();
  if (user.empty()) co_return;
  std::vector<asio::awaitable<void>> starts;
  for (const auto& [name, server] : templates_) {
    if (learned_.count(name) || instances_.count({name, user})) continue;
    starts.push_back(start_for(self, name, user));
  }
  co_await core::when_all(std::move(starts));
}

const std::vector<json>& user_servers::tools(const std::string& server, const std::string& user) {
  static const std::vector<json> none;
  auto found = instances_.find({server, user});
  if (found != instances_.end() && found->second->server && found->second->server->state() == server_state::ready) {
    remember_tools(server, *found->second);
  }
  auto learned = learned_.find(server);
  return learned == learned_.end() ? none : learned->second;
}

void user_servers::remember_tools(const std::string& server, const user_instance& instance) {
  if (!instance.server || instance.server->state() != server_state::ready) return;
  // Shown to every user of the server: never with this user's secret values.
  auto tools = instance.server->tools();
  if (instance.mask) {
    for (auto& tool : tools) tool = instance.mask->censor(std::move(tool));
  }
  learned_[server] = std::move(tools);
}

json user_servers::status(const std::string& server) const {
  std::size_t running = 0, ready = 0, in_calls = 0;
  json pids = json::array();
  for (const auto& [key, instance] : instances_) {
    if (key.first != server || !instance->server) continue;
    ++running;
    if (instance->server->state() == server_state::ready) ++ready;
    if (instance->calls > 0) ++in_calls;
    auto status = instance->server->status();
    if (status.contains("pid")) pids.push_back(status["pid"]);
  }
  const auto& config = templates_.at(server);
  auto learned = learned_.find(server);
  json out = {{"state", "per_user"},
              {"scope", "user"},
              {"transport", transport_name(config.kind)},
              {"instances", running},
              {"ready", ready},
              {"inCalls", in_calls},
              {"tools", learned == learned_.end() ? 0 : learned->second.size()}};
  if (!pids.empty()) out["pids"] = std::move(pids);
  return out;
}

core::health_sources user_servers::health_sources() const {
  core::health_sources out;
  if (templates_.empty()) return out;
  std::weak_ptr<const user_servers> weak = weak_from_this();
  for (const auto& [name, server] : templates_) out.push_back(std::make_shared<server_health>(weak, name));
  out.push_back(std::make_shared<cap_health>(weak, [weak] {
    auto pool = weak.lock();
    std::size_t in_calls = 0;
    for (const auto& [key, instance] : pool->instances_) in_calls += instance->calls > 0;
    const bool full =
        pool->instances_.size() >= pool->user_limits_.max_instances && in_calls == pool->instances_.size();
    return json{{"instances", pool->instances_.size()},
                {"max", pool->user_limits_.max_instances},
                {"inCalls", in_calls},
                {"full", full},
                {"idleMs", pool->user_limits_.idle.count()},
                {"refusedAtCap", pool->refused_},
                {"stoppedIdle", pool->stopped_idle_},
                {"evicted", pool->evicted_}};
  }));
  return out;
}

}  // namespace harness::mcp::detail
