// The tool registry (the seed's DynamicToolManager): every configured MCP
// server's tools under one namespace, `server__tool`, with search, details and
// calls. It starts all servers concurrently, restarts a crashed one with
// backoff, re-lists on notifications/tools/list_changed, and reports each
// server as a health source ("mcp.<server>").
//
// Thread-safety: call everything on the registry's executor (the I/O thread).
// Many concurrent call()s are fine, also to one server.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"
#include "harness/core/health.hpp"
#include "harness/core/metrics.hpp"
#include "harness/mcp/config.hpp"
#include "harness/mcp/secret_source.hpp"
#include "harness/mcp/transport.hpp"

namespace harness::mcp {

class tool_registry {
 public:
  virtual ~tool_registry() = default;

  // Starts every server concurrently and waits until each is ready or has failed
  // (at most limits.startup_timeout). A failed server does not fail start(): it is
  // reported by health and retried in the background with backoff.
  virtual boost::asio::awaitable<void> start() = 0;

  // Returns once start() has settled every server (each ready or failed,
  // bounded by its start timeout): what a request that needs the tools
  // waits for, so a task sent right after start-up sees every tool.
  virtual boost::asio::awaitable<void> wait_started() = 0;
  virtual bool started() const = 0;

  // Stops every server (graceful stdio shutdown, HTTP session DELETE). Idempotent.
  virtual boost::asio::awaitable<void> stop() = 0;

  // [{name, description}] of ready servers' tools, best match first. An empty
  // query lists all tools by name; otherwise tools matching no query word are left out.
  // (GET /tools?query=, list_mcp_tools). `user`: whose instances of
  // user-scoped servers to show (see user_servers.hpp); their tools as last
  // learned from any instance when the user has none running, and none when
  // no instance has run yet (prepare() starts the user's).
  virtual nlohmann::json list_for(const std::string& user, const std::string& query) = 0;
  nlohmann::json list(const std::string& query) { return list_for({}, query); }

  // {name, description, inputSchema, outputSchema?} (GET /tools/{name}, get_mcp_tool_details).
  // Error mcp_unknown_tool when no ready server has it.
  virtual result<nlohmann::json> details_for(const std::string& user, const std::string& name) = 0;
  result<nlohmann::json> details(const std::string& name) { return details_for({}, name); }

  // Starts `user`'s instances of the user-scoped servers whose tools are
  // not known yet, so that list_for(user) shows them; each start is bounded
  // by the start timeout. Nothing to do without user-scoped servers.
  virtual boost::asio::awaitable<void> prepare(std::string user) = 0;

  // Starts `user`'s instance of the server of `tool` (server__tool) when it
  // is user-scoped and the user has none; returns once its start settled.
  // Nothing for a shared server. A failure shows at the call.
  virtual boost::asio::awaitable<void> prepare_call(std::string user, std::string tool) = 0;

  // Calls server__tool. On success: the tool's structuredContent if it has one, else
  // its content with text items parsed as JSON where they are JSON (callMCPTool);
  // a resource_link item carries the name of its `server`, for read_resource.
  // A tool result with isError becomes error mcp_tool_error; see tool_result.hpp.
  // `deadline`: see call_deadline (config.hpp); by default the server's own.
  // Its `user` picks the instance of a user-scoped server.
  virtual boost::asio::awaitable<result<nlohmann::json>> call(std::string name, nlohmann::json arguments,
                                                              call_deadline deadline = {}) = 0;

  // The raw CallToolResult (content, structuredContent, isError) for callers that want it.
  virtual boost::asio::awaitable<result<nlohmann::json>> call_raw(std::string name, nlohmann::json arguments,
                                                                  call_deadline deadline = {}) = 0;

  // resources/read of `uri` on `server` (readMCPResource): the contents'
  // one item ({uri, mimeType?, text | blob}), or the array of them. Errors:
  // mcp_unknown_tool for no such server, mcp_server_unavailable when it is
  // not ready or offers no resources, the server's own JSON-RPC error.
  virtual boost::asio::awaitable<result<nlohmann::json>> read_resource(std::string server, std::string uri,
                                                                       call_deadline deadline = {}) = 0;

  // `user`'s secrets changed: the user's instances of user-scoped servers
  // stop (each once no call is in it), so the next call starts one with the
  // new values.
  virtual void restart_user_instances(const std::string& user) = 0;

  // `user`'s connections to the user-scoped remote servers that use OAuth
  // (each user authorizes with their own account): an array of {"server",
  // "state": "connected" | "needs_authorization" | "error",
  // "authorizationUrl" (while a link is open), "scopes", "error"}.
  virtual boost::asio::awaitable<nlohmann::json> connections(std::string user) = 0;
  // Starts `user`'s authorization for `server` (when not connected) and
  // returns its entry as connections() shows it. Errors: no_such_connection,
  // mcp_user_servers_busy.
  virtual boost::asio::awaitable<result<nlohmann::json>> connect(std::string user, std::string server) = 0;
  // Forgets `user`'s tokens for `server` (revoked where the authorization
  // server can) and stops their instance. Errors: no_such_connection.
  virtual boost::asio::awaitable<harness::status> disconnect(std::string user, std::string server) = 0;

  // One health source per server ("mcp.fs": up, state, reason, tools, restarts).
  virtual core::health_sources health_sources() const = 0;

  // {"servers": {name: {state, transport, tools, restarts, reason?}}} for diagnostics.
  virtual nlohmann::json status() const = 0;
};

// With `metrics`, every call of a known tool is counted in
// harness_mcp_tool_calls_total{server,tool,outcome} (outcome: ok, tool_error,
// or the error code) and timed in harness_mcp_tool_call_duration_seconds{server,tool};
// calls of unknown tools count under server="unknown", tool="unknown".
// `remote`: the HTTP client and authorizers for remote servers; without an
// HTTP client, the registry starts its own when a server needs one.
// `clock` times the servers' starts, restarts and calls; it must outlive the registry.
// `secrets`: where user-scoped servers' ${secret:NAME} values come from (null:
// nowhere, and such a server's calls fail with secret_missing).
std::shared_ptr<tool_registry> create_tool_registry(boost::asio::any_io_executor executor, core::clock& clock,
                                                    mcp_config config,
                                                    std::shared_ptr<core::metrics_registry> metrics = nullptr,
                                                    remote_access remote = {},
                                                    std::shared_ptr<secret_source> secrets = nullptr);

}  // namespace harness::mcp
