// A transport moves JSON-RPC messages between the client and one MCP server:
// stdio (a child process speaking newline-delimited JSON) or Streamable HTTP.
// It knows nothing of request ids or the MCP lifecycle; the client does.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/clock.hpp"
#include "harness/core/error.hpp"
#include "harness/mcp/config.hpp"
#include "harness/mcp/message_identity.hpp"

namespace harness::net {
class http_client;
}

namespace harness::mcp {

class http_authorizer;

// A message from the server that cannot be delivered: over MCP_MAX_MESSAGE_BYTES
// (mcp_message_too_large), not valid JSON (mcp_bad_response), or cut short when the
// connection ended (mcp_connection_lost). `problem` says what was wrong and what to
// do; `identity` is what could still be read of the message (its id, a method).
struct undeliverable_message {
  error problem;
  message_identity identity;
};

struct transport_handlers {
  // Every message the server sends (responses, notifications, requests), in order.
  std::function<void(nlohmann::json)> on_message;
  // Every message that could not be delivered, in order with on_message; the client
  // decides which request, if any, it answered (see client.cpp).
  std::function<void(undeliverable_message)> on_undeliverable;
  // The connection is gone for good (process exited, fatal I/O error); called at most once,
  // never after close() was called.
  std::function<void(error)> on_closed;
};

class transport {
 public:
  virtual ~transport() = default;

  // Starts the transport (spawns the process; nothing for HTTP). Call once, on the executor.
  virtual boost::asio::awaitable<status> open(transport_handlers handlers) = 0;

  // Sends one message. stdio: queues the line and returns (fails once the process is gone).
  // HTTP: POSTs it and delivers whatever comes back (JSON or an SSE stream) through
  // on_message before returning. Error code "session_expired" means the server
  // answered 404 to our Mcp-Session-Id: re-initialize.
  virtual boost::asio::awaitable<status> send(nlohmann::json message) = 0;
  // True when send() returns once the message is on its way (stdio), so the
  // client sends before it starts waiting for the answer; false when send()
  // itself waits for the answer (HTTP), so the client runs it beside the wait.
  virtual bool queues_sends() const { return false; }

  // The client gave up on request `id` (its deadline passed). True when the
  // transport itself tells the server: over HTTP in MCP 2026-07-28, closing
  // the request's response is its cancellation, and no notification may be
  // POSTed. False: send notifications/cancelled (stdio, and the 2025 era,
  // where a dropped connection is explicitly no cancel).
  virtual bool abandon(const nlohmann::json& id) {
    (void)id;
    return false;
  }

  // The negotiated protocol version (HTTP sends it as MCP-Protocol-Version on every request).
  virtual void set_protocol_version(const std::string& version) = 0;

  // The handshake is done: HTTP opens the GET stream for server-initiated messages.
  virtual void on_initialized() = 0;

  // Forget the session (HTTP: drop Mcp-Session-Id) before a fresh initialize.
  virtual void reset_session() = 0;

  // Graceful shutdown. stdio: close stdin, wait, SIGTERM, wait, SIGKILL (each step
  // shutdown_grace). HTTP: DELETE the session, close streams. Idempotent.
  virtual boost::asio::awaitable<void> close() = 0;

  // "stdio:node server.js" or "http:http://host/mcp", for messages. No secrets.
  virtual std::string describe() const = 0;
  // The child's pid (stdio) or 0.
  virtual int pid() const = 0;
};

// A stdio transport that spawns config.command (no shell) with config.args,
// a minimal inherited environment (PATH, HOME, USER, LANG, TMPDIR...) plus config.env.
std::shared_ptr<transport> create_stdio_transport(boost::asio::any_io_executor executor, core::clock& clock,
                                                  server_config config, client_limits limits);

// A Streamable HTTP transport for config.url (http:// or https://) with
// config.headers, over `http`; `authorizer` (may be null) supplies the
// Authorization header and answers 401/403 (OAuth).
std::shared_ptr<transport> create_http_transport(boost::asio::any_io_executor executor, core::clock& clock,
                                                 server_config config, client_limits limits,
                                                 std::shared_ptr<net::http_client> http,
                                                 std::shared_ptr<http_authorizer> authorizer = nullptr);

// An HTTP+SSE transport (protocol 2024-11-05) for config.url, the server's
// event-stream endpoint, with config.headers, over `http`. No OAuth: servers
// of that transport predate MCP's authorization.
std::shared_ptr<transport> create_sse_transport(boost::asio::any_io_executor executor, core::clock& clock,
                                                server_config config, client_limits limits,
                                                std::shared_ptr<net::http_client> http);

// What remote (HTTP) servers need from outside the mcp component: the one
// outbound HTTP client, and each server's authorizer (null: none).
struct remote_access {
  std::shared_ptr<net::http_client> http;
  std::function<std::shared_ptr<http_authorizer>(const server_config&)> authorizer_for;
};

// The transport config.kind asks for. An HTTP server without `remote.http`
// fails to start (mcp_invalid_config).
// Its waits and deadlines are measured on `clock`, which must outlive it.
std::shared_ptr<transport> create_transport(boost::asio::any_io_executor executor, core::clock& clock,
                                            server_config config, client_limits limits, const remote_access& remote);

}  // namespace harness::mcp
