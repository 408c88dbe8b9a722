// The error codes of the execution component (sessions of /execute and the sandbox pool). Each value has
// its wire name and HTTP status in src/execution/errors.cpp; add a code there and here.
#pragma once

#include "harness/core/error_code.hpp"

namespace harness::execution {

enum class errc {
  session_not_found = 1,
  session_busy,
  too_many_sessions,
  session_elsewhere,  // another replica holds the session (it has its sandbox)
  too_many_running,   // the user or key runs its share of one-shot sandboxes; none freed in time
};

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::execution

template <>
struct boost::system::is_error_code_enum<harness::execution::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::execution::errc> = 5;

namespace harness::execution {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::execution
