#include "server_supervisor.hpp"

#include "modern_wire.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/core/version.hpp"
#include "harness/core/with_deadline.hpp"
#include "harness/mcp/errors.hpp"
#include "http_authorizer.hpp"

namespace harness::mcp::detail {
namespace asio = boost::asio;
using nlohmann::json;

const char* to_string(server_state state) {
  switch (state) {
    case server_state::starting:
      return "starting";
    case server_state::ready:
      return "ready";
    case server_state::restarting:
      return "restarting";
    case server_state::failed:
      return "failed";
    case server_state::needs_authorization:
      return "needs_authorization";
    case server_state::stopped:
      return "stopped";
  }
  return "unknown";
}

namespace {

// A server that stayed up this long has its backoff reset after the next crash.
constexpr auto stable_uptime = std::chrono::seconds(30);

class server_health final : public core::health_source {
 public:
  explicit server_health(std::weak_ptr<const server_supervisor> server, std::string name, bool required)
      : server_(std::move(server)), name_("mcp." + std::move(name)), required_(required) {}
  std::string name() const override { return name_; }
  core::component_health check() const override {
    core::component_health health;
    health.required = required_;
    auto server = server_.lock();
    if (!server) {
      health.up = false;
      health.detail = {{"state", "stopped"}};
      return health;
    }
    health.up = server->state() == server_state::ready;
    health.starting = server->state() == server_state::starting;
    health.detail = server->status();
    return health;
  }

 private:
  std::weak_ptr<const server_supervisor> server_;
  std::string name_;
  bool required_;
};

}  // namespace

server_supervisor::server_supervisor(asio::any_io_executor executor, core::clock& clock, server_config config,
                                     client_limits limits, remote_access remote, std::shared_ptr<bool> era_memory)
    : executor_(executor),
      clock_(clock),
      config_(std::move(config)),
      limits_(limits),
      remote_(std::move(remote)),
      legacy_(era_memory ? std::move(era_memory) : std::make_shared<bool>(false)),
      backoff_(clock.make_timer(executor)) {
  if (config_.timeout) limits_.request_timeout = *config_.timeout;
  if (config_.kind == transport_kind::http && remote_.authorizer_for) authorizer_ = remote_.authorizer_for(config_);
}

void server_supervisor::watch_authorization() {
  if (!authorizer_ || watching_authorization_) return;
  watching_authorization_ = true;
  // A change ends the wait of a server that waits for a person (retry_loop).
  authorizer_->on_change([weak = weak_from_this()] {
    auto self = weak.lock();
    if (!self) return;
    self->authorization_changed_ = true;
    if (self->state_ == server_state::needs_authorization) self->backoff_->cancel();
  });
}

asio::awaitable<void> server_supervisor::start() {
  auto self = shared_from_this();
  watch_authorization();
  state_ = server_state::starting;
  if (auto ok = co_await attempt(); !ok) {
    on_lost(ok.error());
  }
}

namespace {

// Connects and lists the tools: the steps of a start that share its deadline.
asio::awaitable<result<std::vector<json>>> connect_and_list(std::shared_ptr<client> fresh) {
  auto connected = co_await fresh->connect();
  if (!connected) co_return connected.error();
  co_return co_await fresh->list_tools();
}

}  // namespace

asio::awaitable<harness::status> server_supervisor::attempt() {
  auto self = shared_from_this();
  client_info info;
  info.version = core::version();
  info.redact = config_.redact;
  // A server of the HTTP+SSE transport is of 2024-11-05; one that answered
  // initialize before, or gave no answer to server/discover, goes straight there.
  info.era = config_.kind == transport_kind::sse || *legacy_ ? protocol_era::legacy : protocol_era::unknown;
  if (client_)
    core::spawn_logged(executor_, client_->close(), "mcp " + config_.name + ": closing the previous session");
  auto transport = create_transport(executor_, clock_, config_, limits_, remote_);
  auto fresh = create_client(executor_, clock_, transport, limits_, info);
  client_ = fresh;
  // The whole start (spawn, initialize, tools/list) has one deadline: close the
  // client when it passes, which fails whatever step is waiting.
  auto starting = connect_and_list(fresh);
  const auto deadline = clock_.steady_now() + limits_.startup_timeout;
  // Named locals, not temporaries in the co_await expression: GCC 12 would
  // destroy the lambda's captures twice.
  auto on_expiry = [fresh, executor = executor_, name = config_.name] {
    core::spawn_logged(executor, fresh->close(), "mcp " + name + ": closing a start that timed out");
  };
  auto started = co_await core::with_deadline(clock_, std::move(starting), deadline, on_expiry);
  auto finish = [&](error e) -> harness::status {
    if (started.expired) {
      e = make_error(mcp::errc::startup_timeout,
                     "server " + config_.name + " did not start within " +
                         std::to_string(limits_.startup_timeout.count()) + " ms (" + e.message + ")",
                     "raise MCP_STARTUP_TIMEOUT_MS or check the server command");
    }
    core::spawn_logged(executor_, fresh->close(), "mcp " + config_.name + ": closing a failed start");
    return e;
  };
  if (!started.value) {
    if (!started.expired && fresh->restart_as_legacy() && !*legacy_ && client_ == fresh &&
        state_ != server_state::stopped) {
      // The probe left the process in no state to initialize: start it again
      // for the 2025 handshake, at once (it is not a crash).
      *legacy_ = true;
      core::log_info("mcp {}: {}", config_.name, started.value.error().message);
      core::spawn_logged(executor_, fresh->close(), "mcp " + config_.name + ": closing a process for its restart");
      co_return co_await attempt();
    }
    // initialize refused (an error, an HTTP 4xx, a version we do not speak):
    // the server may be of the new era now; the next start probes again.
    const auto& code = started.value.error().code;
    if (code == mcp::errc::jsonrpc_error || code == mcp::errc::http_status || code == mcp::errc::unsupported_protocol) {
      *legacy_ = false;
    }
    co_return finish(started.value.error());
  }
  if (started.expired || client_ != fresh) co_return finish(make_error(mcp::errc::connection_lost, "superseded"));
  auto tools = std::move(started.value);

  std::weak_ptr<server_supervisor> weak = self;
  fresh->on_closed([weak](error e) {
    if (auto s = weak.lock()) s->on_lost(e);
  });
  fresh->on_tools_changed([weak] {
    if (auto s = weak.lock())
      core::spawn_logged(s->executor_, s->refresh_tools(), "mcp " + s->config_.name + ": refreshing tools");
  });
  take_tools(std::move(*tools));
  *legacy_ = !modern::is_modern(fresh->server().protocol_version);
  state_ = server_state::ready;
  reason_.clear();
  ready_since_ = clock_.steady_now();
  core::log_info("mcp {}: ready ({} {}, protocol {}, {} tools)", config_.name,
                 fresh->server().info.value("name", std::string("?")),
                 fresh->server().info.value("version", std::string("?")), fresh->server().protocol_version,
                 tools_.size());
  co_return harness::status{};
}

void server_supervisor::on_lost(const error& e) {
  if (state_ == server_state::stopped) return;
  if (state_ == server_state::ready && clock_.steady_now() - ready_since_ >= stable_uptime) {
    failures_in_row_ = 0;
  }
  reason_ = e.describe();
  if (e.code == mcp::errc::needs_authorization) {
    state_ = server_state::needs_authorization;
  } else {
    state_ = state_ == server_state::ready ? server_state::restarting : server_state::failed;
  }
  tools_.clear();
  dropped_ = {};
  if (state_ != server_state::needs_authorization) {
    core::log_warn("mcp {}: {} ({})", config_.name, state_ == server_state::restarting ? "crashed" : "failed to start",
                   reason_);
  }
  if (!retry_scheduled_) {
    retry_scheduled_ = true;
    core::spawn_logged(executor_, retry_loop(), "mcp " + config_.name + ": restarting");
  }
}

asio::awaitable<void> server_supervisor::retry_loop() {
  auto self = shared_from_this();
  while (state_ != server_state::stopped && state_ != server_state::ready) {
    if (state_ == server_state::needs_authorization && authorizer_) {
      // Nothing to retry until a person approves access (or the link they
      // were given expires, and the next attempt makes a new one). The
      // authorizer's change (or stop()) cancels the wait.
      if (!std::exchange(authorization_changed_, false)) {
        backoff_->expires_at(authorizer_->pending_until().value_or(clock_.steady_now() + limits_.restart_backoff_max));
        co_await backoff_->wait();
      }
      authorization_changed_ = false;
      if (state_ == server_state::stopped) break;
      failures_in_row_ = 0;
      if (auto ok = co_await attempt(); !ok && state_ != server_state::stopped) on_retry_failed(ok.error());
      continue;
    }
    auto delay = limits_.restart_backoff_min * (1 << std::min(failures_in_row_, 16));
    delay = std::min(delay, limits_.restart_backoff_max);
    ++failures_in_row_;
    backoff_->expires_at(clock_.steady_now() + delay);
    co_await backoff_->wait();
    if (state_ == server_state::stopped) break;
    ++restarts_;
    core::log_info("mcp {}: restart attempt {} after {} ms", config_.name, restarts_, delay.count());
    auto ok = co_await attempt();
    if (!ok && state_ != server_state::stopped) on_retry_failed(ok.error());
  }
  retry_scheduled_ = false;
}

void server_supervisor::on_retry_failed(const error& e) {
  reason_ = e.describe();
  if (e.code == mcp::errc::needs_authorization) {
    state_ = server_state::needs_authorization;
    return;
  }
  if (state_ == server_state::needs_authorization) state_ = server_state::failed;
  core::log_warn("mcp {}: restart failed ({})", config_.name, reason_);
}

asio::awaitable<void> server_supervisor::refresh_tools() {
  auto self = shared_from_this();
  auto current = client_;
  if (!current || state_ != server_state::ready) co_return;
  auto tools = co_await current->list_tools();
  if (!tools) {
    core::log_warn("mcp {}: re-listing tools after list_changed failed: {}", config_.name, tools.error().describe());
    co_return;
  }
  if (client_ == current) {
    take_tools(std::move(*tools));
    core::log_info("mcp {}: tool list changed ({} tools)", config_.name, tools_.size());
  }
}

void server_supervisor::take_tools(std::vector<json> listed) {
  auto filtered = filter_tools(std::move(listed), limits_.max_tools_per_server);
  if (!filtered.dropped.empty()) core::log_warn("mcp {}: {}", config_.name, describe(filtered.dropped));
  tools_ = std::move(filtered.tools);
  dropped_ = std::move(filtered.dropped);
}

asio::awaitable<void> server_supervisor::stop() {
  auto self = shared_from_this();
  state_ = server_state::stopped;
  backoff_->cancel();
  tools_.clear();
  dropped_ = {};
  if (client_) {
    auto current = std::move(client_);
    co_await current->close();
  }
}

asio::awaitable<result<json>> server_supervisor::call(std::string tool, json arguments, call_deadline deadline) {
  auto self = shared_from_this();
  if (state_ != server_state::ready || !client_) {
    co_return make_error(
        mcp::errc::server_unavailable,
        "MCP server " + config_.name + " is " + to_string(state_) + (reason_.empty() ? std::string() : ": " + reason_),
        "see GET /health; the harness restarts crashed servers with backoff");
  }
  auto current = client_;
  auto outcome = co_await current->call_tool(std::move(tool), std::move(arguments), deadline);
  // An HTTP server has no process to watch: a failed connection is how we learn it is
  // gone, so mark it down (health) and reconnect with backoff, as for a crash.
  if (!outcome && outcome.error().code == mcp::errc::connection_lost && config_.kind == transport_kind::http &&
      client_ == current && state_ == server_state::ready) {
    on_lost(outcome.error());
  }
  co_return outcome;
}

asio::awaitable<result<json>> server_supervisor::read_resource(std::string uri, call_deadline deadline) {
  auto self = shared_from_this();
  if (state_ != server_state::ready || !client_) {
    co_return make_error(mcp::errc::server_unavailable, "MCP server " + config_.name + " is " + to_string(state_),
                         "see GET /health");
  }
  if (!client_->server().capabilities.contains("resources")) {
    co_return make_error(mcp::errc::server_unavailable, "MCP server " + config_.name + " offers no resources");
  }
  auto current = client_;
  // Named: GCC 12 mishandles temporaries made in a co_await expression.
  std::string method = "resources/read";
  json params = {{"uri", std::move(uri)}};
  co_return co_await current->request(std::move(method), std::move(params), std::move(deadline));
}

const json* server_supervisor::find_tool(const std::string& tool) const {
  for (const auto& t : tools_) {
    if (t["name"] == tool) return &t;
  }
  return nullptr;
}

json server_supervisor::status() const {
  json out = {{"state", to_string(state_)},
              {"transport", config_.kind == transport_kind::stdio ? "stdio"
                            : config_.kind == transport_kind::sse ? "sse"
                                                                  : "http"},
              {"tools", tools_.size()},
              {"restarts", restarts_}};
  if (!reason_.empty()) out["reason"] = reason_;
  if (!dropped_.empty()) out["droppedTools"] = to_json(dropped_);
  if (authorizer_) out["oauth"] = authorizer_->describe();
  if (client_ && state_ == server_state::ready) {
    out["protocolVersion"] = client_->server().protocol_version;
    out["server"] = client_->server().info;
    if (client_->pid() > 0) out["pid"] = client_->pid();
  }
  return out;
}

std::shared_ptr<const core::health_source> server_supervisor::health() const {
  return std::make_shared<server_health>(weak_from_this(), config_.name, config_.required);
}

}  // namespace harness::mcp::detail
