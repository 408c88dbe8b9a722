// The MCP client for one server: JSON-RPC 2.0 over a transport, either era
// of the protocol (2026-07-28 found with server/discover, else the 2025
// initialize / notifications/initialized handshake), request deadlines with
// notifications/cancelled, progress (extends a deadline up to a hard cap),
// ping and other server-to-client requests, tools/list pagination.
//
// Thread-safety: every member must be called on the client's executor (one
// I/O thread). Concurrent requests from many coroutines are fine: they are
// multiplexed over the one transport by request id.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/clock.hpp"
#include "harness/core/error.hpp"
#include "harness/mcp/config.hpp"
#include "harness/mcp/transport.hpp"

namespace harness::mcp {

// Protocol revisions we speak; the first is the one we ask for.
const std::vector<std::string>& supported_protocol_versions();

// Which era of MCP a server speaks, as far as the client knows: `unknown`
// probes with server/discover and falls back to initialize; `legacy` goes
// straight to initialize (a server that gave no answer to the probe before).
enum class protocol_era { unknown, legacy };

struct client_info {
  std::string name = "mcp-harness";
  std::string version = "0.1.0";
  protocol_era era = protocol_era::unknown;
  // What the client logs of the server's messages (its log notifications,
  // output it cannot read) passes through this first (server_config::redact).
  std::function<std::string(std::string)> redact;
};

struct server_info {
  std::string protocol_version;
  nlohmann::json info = nlohmann::json::object();  // serverInfo
  nlohmann::json capabilities = nlohmann::json::object();
  std::string instructions;
};

// Error codes a request can fail with (error::code):
//   mcp_timeout           no answer within the deadline (we sent notifications/cancelled)
//   mcp_connection_lost   the server went away while the request was in flight, or its
//                         answer was cut short when it did ("... cut short after N bytes")
//   mcp_message_too_large the answer was over limits.max_message_bytes (MCP_MAX_MESSAGE_BYTES)
//   mcp_bad_response      the answer is not valid JSON, or not a valid JSON-RPC response
//   mcp_jsonrpc_error     the server answered with a JSON-RPC error ("code: message" in message)
//   mcp_unsupported_protocol, mcp_endless_pagination, mcp_not_connected
// An answer that cannot be read fails its request at once (see on_undeliverable in client.cpp).
class client {
 public:
  virtual ~client() = default;

  // Opens the transport and finds the server's era: server/discover (2026-07-28;
  // every request then carries its _meta envelope, and tools/call follows
  // input_required answers and task answers to the end, see modern_calls.hpp),
  // else the initialize handshake. Fails with mcp_unsupported_protocol when the
  // server answers with a revision we do not speak.
  virtual boost::asio::awaitable<result<server_info>> connect() = 0;

  // After a failed connect(): the probe showed a server of the 2025 era in a
  // way that leaves its process unusable (no answer to server/discover, or
  // the process ended on it). Start it again with client_info::era = legacy.
  virtual bool restart_as_legacy() const = 0;

  // Sends a request and waits for its result, within `deadline` (see
  // call_deadline: progress notifications push the timeout out again, up to
  // max_request_time after the start, never past not_after).
  virtual boost::asio::awaitable<result<nlohmann::json>> request(std::string method, nlohmann::json params,
                                                                 call_deadline deadline = {}) = 0;

  virtual boost::asio::awaitable<status> notify(std::string method, nlohmann::json params) = 0;

  // tools/list, following nextCursor for at most limits.max_pages pages. The entries come
  // back as the server listed them, unchecked (names may be missing, invalid or repeated).
  virtual boost::asio::awaitable<result<std::vector<nlohmann::json>>> list_tools() = 0;

  // tools/call; the raw CallToolResult (isError results come back as values, not errors).
  virtual boost::asio::awaitable<result<nlohmann::json>> call_tool(std::string name, nlohmann::json arguments,
                                                                   call_deadline deadline = {}) = 0;

  // Called on notifications/tools/list_changed.
  virtual void on_tools_changed(std::function<void()> callback) = 0;
  // Called once when the transport is lost (not after close()).
  virtual void on_closed(std::function<void(error)> callback) = 0;

  // Fails every request in flight with mcp_connection_lost and closes the transport.
  virtual boost::asio::awaitable<void> close() = 0;

  virtual bool connected() const = 0;
  virtual const server_info& server() const = 0;
  virtual std::size_t in_flight() const = 0;
  virtual int pid() const = 0;
};

// `clock` measures every request's deadlines; it must outlive the client.
std::shared_ptr<client> create_client(boost::asio::any_io_executor executor, core::clock& clock,
                                      std::shared_ptr<transport> transport, client_limits limits,
                                      client_info info = {});

}  // namespace harness::mcp
