// Keeps one configured MCP server running: connect (spawn or HTTP handshake),
// list its tools, restart with exponential backoff after a crash, re-list on
// tools/list_changed, and keep a cached state for /health.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "client.hpp"
#include "harness/core/clock.hpp"
#include "harness/core/error.hpp"
#include "harness/core/health.hpp"
#include "harness/mcp/config.hpp"
#include "harness/mcp/transport.hpp"
#include "tool_list_filter.hpp"

namespace harness::mcp::detail {

// needs_authorization: a remote server waits for a person to approve OAuth access.
enum class server_state { starting, ready, restarting, failed, needs_authorization, stopped };
const char* to_string(server_state state);

class server_supervisor : public std::enable_shared_from_this<server_supervisor> {
 public:
  // `clock` times starts, restarts and requests; it must outlive the supervisor.
  // `era_memory`: whether the server spoke the 2025 era last time, shared by
  // the supervisors of one server (a user-scoped server's instances); null: its own.
  server_supervisor(boost::asio::any_io_executor executor, core::clock& clock, server_config config,
                    client_limits limits, remote_access remote = {}, std::shared_ptr<bool> era_memory = nullptr);

  // First connection attempt (bounded by limits.startup_timeout). On failure the
  // supervisor keeps retrying in the background with backoff.
  boost::asio::awaitable<void> start();
  boost::asio::awaitable<void> stop();

  // Calls a tool (its MCP name, without the server prefix); the raw CallToolResult.
  boost::asio::awaitable<result<nlohmann::json>> call(std::string tool, nlohmann::json arguments,
                                                      call_deadline deadline);

  // resources/read of `uri`; the raw ReadResourceResult. mcp_server_unavailable
  // when the server is not ready or did not declare the resources capability.
  boost::asio::awaitable<result<nlohmann::json>> read_resource(std::string uri, call_deadline deadline);

  const server_config& config() const { return config_; }
  server_state state() const { return state_; }
  // Its OAuth (a remote server's); null without.
  const std::shared_ptr<http_authorizer>& authorizer() const { return authorizer_; }
  const std::vector<nlohmann::json>& tools() const { return tools_; }
  const nlohmann::json* find_tool(const std::string& tool) const;
  nlohmann::json status() const;
  std::shared_ptr<const core::health_source> health() const;

 private:
  boost::asio::awaitable<harness::status> attempt();
  boost::asio::awaitable<void> retry_loop();
  boost::asio::awaitable<void> refresh_tools();
  void watch_authorization();
  void on_lost(const error& e);
  void on_retry_failed(const error& e);
  void take_tools(std::vector<nlohmann::json> listed);

  boost::asio::any_io_executor executor_;
  core::clock& clock_;
  server_config config_;
  client_limits limits_;
  remote_access remote_;
  std::shared_ptr<http_authorizer> authorizer_;  // OAuth of a remote server; null: none
  bool watching_authorization_ = false;
  bool authorization_changed_ = false;  // since the last wait for a person began
  std::shared_ptr<client> client_;
  std::vector<nlohmann::json> tools_;
  dropped_tools dropped_;  // what the last listing had that tools_ does not
  server_state state_ = server_state::starting;
  std::string reason_;
  int restarts_ = 0;
  int failures_in_row_ = 0;
  bool retry_scheduled_ = false;
  // The server spoke the 2025 era (initialize) last time: restarts skip the
  // server/discover probe (2026-07-28 says to remember the era per server).
  std::shared_ptr<bool> legacy_;
  core::steady_time ready_since_{};
  std::unique_ptr<core::timer> backoff_;
};

}  // namespace harness::mcp::detail
