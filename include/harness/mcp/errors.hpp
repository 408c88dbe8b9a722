// The error codes of the mcp component (MCP servers: configuration, transports, the tool registry). Each value has
// its wire name and HTTP status in src/mcp/errors.cpp; add a code there and here.
#pragma once

#include "harness/core/error_code.hpp"

namespace harness::mcp {

enum class errc {
  invalid_config = 1,
  spawn_failed,
  startup_timeout,
  unsupported_protocol,
  not_connected,
  connection_lost,
  server_unavailable,
  timeout,
  session_expired,
  http_status,
  bad_response,
  message_too_large,
  endless_pagination,
  jsonrpc_error,
  unknown_tool,
  invalid_arguments,
  tool_error,
  needs_authorization,     // OAuth: a person must approve access first (the authorization URL is in /health)
  authorization_failed,    // OAuth: discovery, registration or a token request failed
  oauth_callback_invalid,  // GET /oauth/callback for no pending authorization (unknown, expired, used)
  grant_refused,           // OAuth: the authorization server refused the grant or the client (invalid_grant, ...)
};

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::mcp

template <>
struct boost::system::is_error_code_enum<harness::mcp::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::mcp::errc> = 21;

namespace harness::mcp {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::mcp
