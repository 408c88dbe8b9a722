// The error codes of the core component (settings, start-up and failures any component can report). Each code is one
// row of the table below: X(enumerator, the wire name clients read, the HTTP status); adding the row is all a new code
// takes, and a wire name never changes (clients depend on it).
#pragma once

#include "harness/core/errc_table.hpp"

#define HARNESS_CORE_ERRORS(X)                 \
  X(invalid_setting, "invalid_setting", 500)   \
  X(invalid_dotenv, "invalid_dotenv", 500)     \
  X(invalid_argument, "invalid_argument", 400) \
  X(startup_failed, "startup_failed", 500)     \
  X(cancelled, "cancelled", 503)               \
  X(internal_error, "internal_error", 500)

namespace harness::core {

enum class errc { HARNESS_ERRC_ENUMERATORS(HARNESS_CORE_ERRORS) };

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::core

template <>
struct boost::system::is_error_code_enum<harness::core::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::core::errc> = HARNESS_ERRC_COUNT(HARNESS_CORE_ERRORS);

namespace harness::core {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::core
