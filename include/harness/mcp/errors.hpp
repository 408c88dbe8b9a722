// The error codes of the mcp component (MCP servers: configuration, transports, the tool registry). Each code is one
// row of the table below: X(enumerator, the wire name clients read, the HTTP status); adding the row is all a new code
// takes, and a wire name never changes (clients depend on it).
#pragma once

#include "harness/core/errc_table.hpp"

#define HARNESS_MCP_ERRORS(X)                                                                            \
  X(invalid_config, "invalid_mcp_config", 500)                                                           \
  X(spawn_failed, "mcp_spawn_failed", 503)                                                               \
  X(startup_timeout, "mcp_startup_timeout", 503)                                                         \
  X(unsupported_protocol, "mcp_unsupported_protocol", 503)                                               \
  X(not_connected, "mcp_not_connected", 503)                                                             \
  X(connection_lost, "mcp_connection_lost", 503)                                                         \
  X(server_unavailable, "mcp_server_unavailable", 503)                                                   \
  X(timeout, "mcp_timeout", 503)                                                                         \
  X(session_expired, "session_expired", 503)                                                             \
  X(http_status, "mcp_http_status", 503)                                                                 \
  X(bad_response, "mcp_bad_response", 503)                                                               \
  X(message_too_large, "mcp_message_too_large", 503)                                                     \
  X(endless_pagination, "mcp_endless_pagination", 503)                                                   \
  X(jsonrpc_error, "mcp_jsonrpc_error", 503)                                                             \
  X(unknown_tool, "mcp_unknown_tool", 404)                                                               \
  X(invalid_arguments, "invalid_arguments", 400)                                                         \
  X(tool_error, "mcp_tool_error", 503)                                                                   \
  /* OAuth: a person must approve access first (the authorization URL is in /health) */                  \
  X(needs_authorization, "mcp_needs_authorization", 503)                                                 \
  /* OAuth: discovery, registration or a token request failed */                                         \
  X(authorization_failed, "mcp_authorization_failed", 502)                                               \
  /* GET /oauth/callback for no pending authorization (unknown, expired, used) */                        \
  X(oauth_callback_invalid, "oauth_callback_invalid", 400)                                               \
  /* OAuth: the authorization server refused the grant or the client (invalid_grant, ...) */             \
  X(grant_refused, "mcp_grant_refused", 502)                                                             \
  /* every instance of user-scoped servers is in a call and the cap (MCP_MAX_USER_SERVERS) is reached */ \
  X(user_servers_busy, "mcp_user_servers_busy", 503)                                                     \
  /* a user-scoped server names ${secret:NAME} and the acting user has not set that secret */            \
  X(secret_missing, "secret_missing", 409)                                                               \
  /* /connections/{server} names no user-scoped remote server that uses OAuth */                         \
  X(no_such_connection, "no_such_connection", 404)

namespace harness::mcp {

enum class errc { HARNESS_ERRC_ENUMERATORS(HARNESS_MCP_ERRORS) };

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::mcp

template <>
struct boost::system::is_error_code_enum<harness::mcp::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::mcp::errc> = HARNESS_ERRC_COUNT(HARNESS_MCP_ERRORS);

namespace harness::mcp {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::mcp
