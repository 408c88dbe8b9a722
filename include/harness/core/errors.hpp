// The error codes of the core component (settings, start-up and failures any component can report). Each value has
// its wire name and HTTP status in src/core/errors.cpp; add a code there and here.
#pragma once

#include "harness/core/error_code.hpp"

namespace harness::core {

enum class errc {
  invalid_setting = 1,
  invalid_dotenv,
  invalid_argument,
  startup_failed,
  cancelled,
  internal_error,
};

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::core

template <>
struct boost::system::is_error_code_enum<harness::core::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::core::errc> = 6;

namespace harness::core {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::core
