// The error codes of the http component (the HTTP server and its routes). Each code is one row of the table below:
// X(enumerator, the wire name clients read, the HTTP status); adding the row is all a new code takes, and a wire name
// never changes (clients depend on it).
#pragma once

#include "harness/core/errc_table.hpp"

#define HARNESS_HTTP_ERRORS(X)                             \
  X(bind_failed, "bind_failed", 500)                       \
  X(bad_request, "bad_request", 400)                       \
  X(bad_target, "bad_target", 400)                         \
  X(request_timeout, "request_timeout", 408)               \
  X(headers_too_large, "headers_too_large", 431)           \
  X(body_too_large, "body_too_large", 413)                 \
  X(not_implemented, "not_implemented", 501)               \
  X(unsupported_media_type, "unsupported_media_type", 415) \
  X(malformed_json, "malformed_json", 400)                 \
  X(invalid_body, "invalid_body", 400)                     \
  X(invalid_request, "invalid_request", 400)               \
  X(not_found, "not_found", 404)                           \
  X(method_not_allowed, "method_not_allowed", 405)         \
  X(agent_unavailable, "agent_unavailable", 503)           \
  X(sandbox_unavailable, "sandbox_unavailable", 503)       \
  X(mcp_unavailable, "mcp_unavailable", 503)               \
  X(skills_unavailable, "skills_unavailable", 503)         \
  X(secrets_unavailable, "secrets_unavailable", 503)       \
  X(workspace_unavailable, "workspace_unavailable", 503)   \
  X(metrics_disabled, "metrics_disabled", 503)             \
  X(host_not_allowed, "host_not_allowed", 421)             \
  X(origin_not_allowed, "origin_not_allowed", 403)

namespace harness::http {

enum class errc { HARNESS_ERRC_ENUMERATORS(HARNESS_HTTP_ERRORS) };

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::http

template <>
struct boost::system::is_error_code_enum<harness::http::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::http::errc> = HARNESS_ERRC_COUNT(HARNESS_HTTP_ERRORS);

namespace harness::http {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::http
