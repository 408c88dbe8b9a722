// The error codes of the llm component (LLM providers, their transport and record/replay). Each code is one row of the
// table below: X(enumerator, the wire name clients read, the HTTP status); adding the row is all a new code takes, and
// a wire name never changes (clients depend on it).
#pragma once

#include "harness/core/errc_table.hpp"

#define HARNESS_LLM_ERRORS(X)                          \
  X(invalid_json, "invalid_json", 503)                 \
  X(bad_request, "llm_bad_request", 503)               \
  X(unauthorized, "llm_unauthorized", 503)             \
  X(forbidden, "llm_forbidden", 503)                   \
  X(not_found, "llm_not_found", 503)                   \
  X(request_too_large, "llm_request_too_large", 503)   \
  X(rate_limited, "llm_rate_limited", 503)             \
  X(server_error, "llm_server_error", 503)             \
  X(overloaded, "llm_overloaded", 503)                 \
  X(busy, "llm_busy", 503)                             \
  X(internal, "llm_internal", 503)                     \
  X(error, "llm_error", 503)                           \
  X(timeout, "llm_timeout", 503)                       \
  X(deadline_exceeded, "llm_deadline_exceeded", 503)   \
  X(connection_failed, "llm_connection_failed", 503)   \
  X(transport, "llm_transport", 503)                   \
  X(response_too_large, "llm_response_too_large", 503) \
  X(bad_response, "llm_bad_response", 503)             \
  X(replay_exhausted, "replay_exhausted", 503)         \
  X(replay_invalid, "replay_invalid", 503)

namespace harness::llm {

enum class errc { HARNESS_ERRC_ENUMERATORS(HARNESS_LLM_ERRORS) };

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::llm

template <>
struct boost::system::is_error_code_enum<harness::llm::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::llm::errc> = HARNESS_ERRC_COUNT(HARNESS_LLM_ERRORS);

namespace harness::llm {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::llm
