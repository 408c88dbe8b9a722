// The error codes of the execution component (sessions of /execute and the sandbox pool). Each code is one row of the
// table below: X(enumerator, the wire name clients read, the HTTP status); adding the row is all a new code takes, and
// a wire name never changes (clients depend on it).
#pragma once

#include <string>

#include "harness/core/errc_table.hpp"
#include "harness/core/error.hpp"

#define HARNESS_EXECUTION_ERRORS(X)                                              \
  X(session_not_found, "session_not_found", 404)                                 \
  X(session_busy, "session_busy", 409)                                           \
  X(too_many_sessions, "too_many_sessions", 429)                                 \
  /* another replica holds the session (it has its sandbox) */                   \
  /* 421: Misdirected Request: the replica holding it must answer */             \
  X(session_elsewhere, "session_elsewhere", 421)                                 \
  /* the user or key runs its share of one-shot sandboxes; none freed in time */ \
  X(too_many_running, "too_many_running", 429)                                   \
  /* a session keeps the language of its first block */                          \
  X(language_mismatch, "language_mismatch", 409)                                 \
  /* this server runs no sandboxes of that language */                           \
  X(unsupported_language, "unsupported_language", 400)

namespace harness::execution {

enum class errc { HARNESS_ERRC_ENUMERATORS(HARNESS_EXECUTION_ERRORS) };

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

// The error for a session another replica holds (HTTP 421): names the replica.
error session_elsewhere(const std::string& session_id, const std::string& replica);

}  // namespace harness::execution

template <>
struct boost::system::is_error_code_enum<harness::execution::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::execution::errc> = HARNESS_ERRC_COUNT(HARNESS_EXECUTION_ERRORS);

namespace harness::execution {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::execution
