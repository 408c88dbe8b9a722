// The error codes of the http component (the HTTP server and its routes). Each value has
// its wire name and HTTP status in src/http/errors.cpp; add a code there and here.
#pragma once

#include "harness/core/error_code.hpp"

namespace harness::http {

enum class errc {
  bind_failed = 1,
  bad_request,
  bad_target,
  request_timeout,
  headers_too_large,
  body_too_large,
  not_implemented,
  unsupported_media_type,
  malformed_json,
  invalid_body,
  invalid_request,
  not_found,
  method_not_allowed,
  agent_unavailable,
  sandbox_unavailable,
  mcp_unavailable,
  skills_unavailable,
  workspace_unavailable,
  metrics_disabled,
  host_not_allowed,
  origin_not_allowed,
};

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::http

template <>
struct boost::system::is_error_code_enum<harness::http::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::http::errc> = 21;

namespace harness::http {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::http
