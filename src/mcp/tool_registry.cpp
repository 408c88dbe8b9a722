#include "harness/mcp/tool_registry.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include <boost/asio/use_awaitable.hpp>

#include "harness/core/async_event.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/when_all.hpp"
#include "harness/mcp/errors.hpp"
#include "harness/net/http_client.hpp"
#include "http_authorizer.hpp"
#include "server_supervisor.hpp"
#include "tool_result.hpp"
#include "user_servers.hpp"

namespace harness::mcp {
namespace asio = boost::asio;
using nlohmann::json;

namespace {

constexpr std::string_view separator = "__";

class tool_registry_impl final : public tool_registry, public std::enable_shared_from_this<tool_registry_impl> {
 public:
  tool_registry_impl(asio::any_io_executor executor, core::clock& clock, mcp_config config,
                     std::shared_ptr<core::metrics_registry> metrics, remote_access remote,
                     std::shared_ptr<secret_source> secrets)
      : executor_(std::move(executor)),
        clock_(clock),
        config_(std::move(config)),
        metrics_(std::move(metrics)),
        remote_(std::move(remote)),
        started_(executor_) {
    // A registry given no HTTP client (tests, tools) makes its own for its remote servers.
    const bool any_remote = std::any_of(config_.servers.begin(), config_.servers.end(),
                                        [](const server_config& s) { return s.kind != transport_kind::stdio; });
    if (any_remote && !remote_.http) remote_.http = net::create_http_client(net::start_curl_loop());
    if (metrics_) {
      calls_ = &metrics_->counters("harness_mcp_tool_calls_total", "MCP tool calls, by server, tool and outcome.",
                                   {"server", "tool", "outcome"});
      call_seconds_ = &metrics_->histograms("harness_mcp_tool_call_duration_seconds",
                                            "Time of one MCP tool call, from the registry to the server and back.",
                                            {"server", "tool"});
    }
    std::vector<server_config> per_user;
    for (const auto& server : config_.servers) {
      if (server.scope == server_scope::user) {
        per_user.push_back(server);
        continue;
      }
      servers_[server.name] =
          std::make_shared<detail::server_supervisor>(executor_, clock_, server, config_.limits, remote_);
    }
    user_servers_ = std::make_shared<detail::user_servers>(executor_, clock_, std::move(per_user), config_.limits,
                                                           config_.user_servers, remote_, std::move(secrets));
    if (metrics_ && !user_servers_->names().empty()) {
      metrics_->add_callback(
          "harness_mcp_user_server_instances",
          "Running instances of user-scoped MCP servers (one per user who used one lately).", core::metric_type::gauge,
          {}, [weak = std::weak_ptr(user_servers_)] {
            auto pool = weak.lock();
            return std::vector<core::sample>{{{}, pool ? static_cast<double>(pool->instance_count()) : 0.0}};
          });
    }
  }

  asio::awaitable<void> start() override {
    auto self = shared_from_this();
    // Every server at once; each start is bounded by startup_timeout.
    co_await for_each_server([](std::shared_ptr<detail::server_supervisor> server) { return server->start(); });
    std::size_t ready = 0;
    for (auto& [name, server] : servers_) ready += server->state() == detail::server_state::ready;
    core::log_info("mcp: {} of {} shared servers ready{}", ready, servers_.size(),
                   user_servers_->names().empty() ? std::string()
                                                  : "; " + std::to_string(user_servers_->names().size()) +
                                                        " user-scoped server(s) start per user on first use");
    user_servers_->start();
    started_.set();
  }

  asio::awaitable<void> wait_started() override {
    auto self = shared_from_this();
    co_await started_.wait();
  }
  bool started() const override { return started_.is_set(); }

  asio::awaitable<void> stop() override {
    auto self = shared_from_this();
    co_await for_each_server([](std::shared_ptr<detail::server_supervisor> server) { return server->stop(); });
    co_await user_servers_->stop();
  }

  asio::awaitable<void> prepare(std::string user) override {
    auto self = shared_from_this();
    co_await user_servers_->learn_tools(std::move(user));
  }

  asio::awaitable<void> prepare_call(std::string user, std::string tool) override {
    auto self = shared_from_this();
    const std::size_t split = tool.find(separator);
    if (split == std::string::npos || !user_servers_->has(tool.substr(0, split))) co_return;
    auto use = co_await user_servers_->use(tool.substr(0, split), std::move(user));
    (void)use;  // the call that follows reports a failure
  }

  json list_for(const std::string& user, const std::string& query) override {
    std::vector<ranked_tool> tools;
    auto add = [&tools](const std::string& server, const std::vector<json>& listed) {
      for (const auto& tool : listed) {
        tools.push_back({server + std::string(separator) + tool["name"].get<std::string>(),
                         tool.value("description", std::string()), 0});
      }
    };
    for (const auto& [name, server] : servers_) add(name, server->tools());
    for (const auto& name : user_servers_->names()) add(name, user_servers_->tools(name, user));
    json out = json::array();
    for (const auto& tool : rank_tools(tools, query)) {
      out.push_back({{"name", tool.name}, {"description", short_description(tool.description)}});
    }
    return out;
  }

  result<json> details_for(const std::string& user, const std::string& name) override {
    auto found = find(name, user);
    if (!found) return found.error();
    const json& tool = *found->second;
    json out = {{"name", name},
                {"description", tool.value("description", std::string())},
                {"inputSchema", tool.value("inputSchema", json{{"type", "object"}})}};
    if (tool.contains("outputSchema")) out["outputSchema"] = tool["outputSchema"];
    if (tool.contains("title")) out["title"] = tool["title"];
    if (tool.contains("annotations")) out["annotations"] = tool["annotations"];
    return out;
  }

  asio::awaitable<result<json>> call_raw(std::string name, json arguments, call_deadline timeout) override {
    if (!calls_) co_return co_await call_unmetered(name, std::move(arguments), timeout);
    const auto started = clock_.steady_now();
    auto raw = co_await call_unmetered(name, std::move(arguments), timeout);
    record_call(name, raw, clock_.steady_now() - started);
    co_return raw;
  }

  asio::awaitable<result<json>> call_unmetered(std::string name, json arguments, call_deadline timeout) {
    auto self = shared_from_this();
    if (!arguments.is_null() && !arguments.is_object()) {
      co_return make_error(mcp::errc::invalid_arguments, "arguments for " + name + " must be a JSON object");
    }
    const std::size_t split = name.find(separator);
    const std::string server_name = split == std::string::npos ? std::string() : name.substr(0, split);
    if (split != 0 && split != std::string::npos && user_servers_->has(server_name)) {
      // The acting user's own instance, started on first use.
      auto use = co_await user_servers_->use(server_name, timeout.user);
      if (!use) co_return use.error();
      auto tool = usable_tool(use->server(), name.substr(split + separator.size()));
      if (!tool) co_return tool.error();
      // The user's secret values stay inside their instance: tokens in, tokens out.
      const auto* mask = use->mask();
      if (mask) arguments = mask->restore(std::move(arguments));
      if (mask && timeout.elicit) {
        // What the instance asks the person (an elicitation) is text from it too.
        timeout.elicit = [ask = std::move(timeout.elicit),
                          held = use->shared_mask()](json params) -> asio::awaitable<std::optional<json>> {
          auto censored = held->censor(std::move(params));  // named: GCC 12 and temporaries in co_await
          co_return co_await ask(std::move(censored));
        };
      }
      auto raw = co_await use->server().call(name.substr(split + separator.size()), std::move(arguments), timeout);
      if (!mask) co_return raw;
      if (!raw) co_return mask->censor(raw.error());
      co_return mask->censor(std::move(*raw));
    }
    auto found = find(name, {});
    if (!found) co_return found.error();
    auto server = found->first;
    co_return co_await server->call(name.substr(split + separator.size()), std::move(arguments), timeout);
  }

  asio::awaitable<result<json>> call(std::string name, json arguments, call_deadline timeout) override {
    auto raw = co_await call_raw(name, std::move(arguments), timeout);
    if (!raw) co_return raw.error();
    auto value = tool_result_value(std::move(*raw), name.substr(0, name.find(separator)));
    if (!value && value.error().code == mcp::errc::tool_error) {
      co_return make_error(mcp::errc::tool_error, name + " failed: " + value.error().message);
    }
    co_return value;
  }

  asio::awaitable<result<json>> read_resource(std::string server, std::string uri, call_deadline timeout) override {
    auto self = shared_from_this();
    if (user_servers_->has(server)) {
      auto use = co_await user_servers_->use(server, timeout.user);
      if (!use) co_return use.error();
      auto read = co_await use->server().read_resource(std::move(uri), std::move(timeout));
      const auto* mask = use->mask();
      if (!read) co_return mask ? mask->censor(read.error()) : read.error();
      co_return resource_contents_value(mask ? mask->censor(std::move(*read)) : std::move(*read));
    }
    auto it = servers_.find(server);
    if (it == servers_.end()) {
      co_return make_error(mcp::errc::unknown_tool, "no MCP server named " + server,
                           "pass a resource_link from a tool's result, or readMCPResource('server', 'uri')");
    }
    auto read = co_await it->second->read_resource(std::move(uri), std::move(timeout));
    if (!read) co_return read.error();
    co_return resource_contents_value(*read);
  }

  void restart_user_instances(const std::string& user) override { user_servers_->restart_user(user); }

  asio::awaitable<json> connections(std::string user) override {
    auto self = shared_from_this();
    json out = json::array();
    for (const auto& server : user_servers_->oauth_servers()) {
      out.push_back(co_await user_servers_->connection(server, user));
    }
    co_return out;
  }

  asio::awaitable<result<json>> connect(std::string user, std::string server) override {
    auto self = shared_from_this();
    co_return co_await user_servers_->connect(std::move(server), std::move(user));
  }

  asio::awaitable<harness::status> disconnect(std::string user, std::string server) override {
    auto self = shared_from_this();
    co_return co_await user_servers_->disconnect(std::move(server), std::move(user));
  }

  core::health_sources health_sources() const override {
    core::health_sources out;
    for (const auto& [name, server] : servers_) out.push_back(server->health());
    for (auto& source : user_servers_->health_sources()) out.push_back(std::move(source));
    return out;
  }

  json status() const override {
    json out = {{"servers", json::object()}};
    for (const auto& [name, server] : servers_) out["servers"][name] = server->status();
    for (const auto& name : user_servers_->names()) out["servers"][name] = user_servers_->status(name);
    return out;
  }

 private:
  // Runs step(server) for all servers concurrently and waits for the last one.
  template <class Step>
  asio::awaitable<void> for_each_server(Step step) {
    std::vector<asio::awaitable<void>> steps;
    steps.reserve(servers_.size());
    for (auto& [name, server] : servers_) steps.push_back(step(server));
    co_await core::when_all(std::move(steps));
  }

  // Names come from sandbox code: a label takes only a server and a tool the
  // registry knows (the tool in that server's current list); anything else
  // is "unknown", so code cannot make series of its own choosing.
  void record_call(std::string_view name, const result<json>& raw, core::steady_time::duration took) {
    const std::string code = raw ? std::string() : std::string(raw.error().code.wire_name());
    const auto split = name.find(separator);
    std::string_view server = "unknown", tool = "unknown";
    if (split != std::string_view::npos) {
      const std::string server_name(name.substr(0, split));
      const std::string tool_name(name.substr(split + separator.size()));
      auto it = servers_.find(server_name);
      if (it != servers_.end()) {
        server = it->first;
        if (it->second->find_tool(tool_name)) tool = name.substr(split + separator.size());
      } else if (user_servers_->has(server_name)) {
        server = name.substr(0, split);
        if (find_in(user_servers_->tools(server_name, {}), tool_name)) tool = name.substr(split + separator.size());
      }
    }
    std::string_view outcome = !raw                                               ? std::string_view(code)
                               : raw->is_object() && raw->value("isError", false) ? "tool_error"
                                                                                  : "ok";
    calls_->with({server, tool, outcome}).inc();
    call_seconds_->with({server, tool}).observe(std::chrono::duration<double>(took).count());
  }

  using found_tool = std::pair<std::shared_ptr<detail::server_supervisor>, const json*>;

  static const json* find_in(const std::vector<json>& tools, const std::string& tool) {
    for (const auto& t : tools) {
      if (t["name"] == tool) return &t;
    }
    return nullptr;
  }

  // `tool` on a user's instance: it must be ready and have the tool.
  static result<const json*> usable_tool(const detail::server_supervisor& server, const std::string& tool) {
    if (server.state() == detail::server_state::needs_authorization && server.authorizer()) {
      // The user has not connected their account: the link to do it goes to them, with the failed call.
      const auto oauth = server.authorizer()->describe();
      return connect_your_account(server.config().name, oauth.value("authorizationUrl", std::string()));
    }
    if (server.state() != detail::server_state::ready) {
      auto status = server.status();
      return make_error(mcp::errc::server_unavailable,
                        "your instance of MCP server " + server.config().name + " is " +
                            detail::to_string(server.state()) +
                            (status.contains("reason") ? ": " + status["reason"].get<std::string>() : std::string()),
                        "see GET /health; a crashed instance is restarted with backoff");
    }
    const json* found = server.find_tool(tool);
    if (!found) {
      return make_error(mcp::errc::unknown_tool, "server " + server.config().name + " has no tool " + tool,
                        "list the tools with list_mcp_tools()");
    }
    return found;
  }

  // The tool `name` as `user` sees it; for a shared server, its supervisor
  // too (null for a user-scoped one, whose instance use() gives).
  result<found_tool> find(const std::string& name, const std::string& user) {
    const std::size_t split = name.find(separator);
    if (split == std::string::npos || split == 0) {
      return make_error(mcp::errc::unknown_tool, "no tool named " + name,
                        "tool names are server__tool; list them with list_mcp_tools()");
    }
    if (user_servers_->has(name.substr(0, split))) {
      const json* tool = find_in(user_servers_->tools(name.substr(0, split), user), name.substr(split + 2));
      if (!tool) {
        return make_error(mcp::errc::unknown_tool,
                          "server " + name.substr(0, split) + " has no tool " + name.substr(split + 2) +
                              " (as far as its instances have told)",
                          "list the tools with list_mcp_tools()");
      }
      return found_tool{nullptr, tool};
    }
    auto it = servers_.find(name.substr(0, split));
    if (it == servers_.end()) {
      return make_error(mcp::errc::unknown_tool, "no MCP server named " + name.substr(0, split),
                        "tool names are server__tool; list them with list_mcp_tools()");
    }
    const auto& server = it->second;
    if (server->state() != detail::server_state::ready) {
      return make_error(mcp::errc::server_unavailable,
                        "MCP server " + it->first + " is " + detail::to_string(server->state()) +
                            (server->status().contains("reason") ? ": " + server->status()["reason"].get<std::string>()
                                                                 : std::string()),
                        "see GET /health; crashed servers are restarted with backoff");
    }
    const json* tool = server->find_tool(name.substr(split + separator.size()));
    if (!tool) {
      return make_error(mcp::errc::unknown_tool, "server " + it->first + " has no tool " + name.substr(split + 2),
                        "list the tools with list_mcp_tools()");
    }
    return found_tool{server, tool};
  }

  asio::any_io_executor executor_;
  core::clock& clock_;
  mcp_config config_;
  std::shared_ptr<core::metrics_registry> metrics_;
  remote_access remote_;
  core::family<core::counter>* calls_ = nullptr;
  core::family<core::histogram>* call_seconds_ = nullptr;
  std::map<std::string, std::shared_ptr<detail::server_supervisor>> servers_;  // shared servers
  std::shared_ptr<detail::user_servers> user_servers_;                         // "scope": "user" ones
  core::async_event started_;  // set when start() has settled every server
};

}  // namespace

std::shared_ptr<tool_registry> create_tool_registry(asio::any_io_executor executor, core::clock& clock,
                                                    mcp_config config, std::shared_ptr<core::metrics_registry> metrics,
                                                    remote_access remote, std::shared_ptr<secret_source> secrets) {
  return std::make_shared<tool_registry_impl>(std::move(executor), clock, std::move(config), std::move(metrics),
                                              std::move(remote), std::move(secrets));
}

}  // namespace harness::mcp
