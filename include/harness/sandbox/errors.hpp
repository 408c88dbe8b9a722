// The error codes of the sandbox component (running code blocks in Docker containers). Each code is one row of the
// table below: X(enumerator, the wire name clients read, the HTTP status); adding the row is all a new code takes, and
// a wire name never changes (clients depend on it).
#pragma once

#include "harness/core/errc_table.hpp"

#define HARNESS_SANDBOX_ERRORS(X)                \
  X(bad_request, "sandbox_bad_request", 400)     \
  X(shutting_down, "sandbox_shutting_down", 503) \
  X(runtime_missing, "sandbox_runtime_missing", 503)

namespace harness::sandbox {

enum class errc { HARNESS_ERRC_ENUMERATORS(HARNESS_SANDBOX_ERRORS) };

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::sandbox

template <>
struct boost::system::is_error_code_enum<harness::sandbox::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::sandbox::errc> = HARNESS_ERRC_COUNT(HARNESS_SANDBOX_ERRORS);

namespace harness::sandbox {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::sandbox
