// The error codes of the sandbox component (running code blocks in Docker containers). Each value has
// its wire name and HTTP status in src/sandbox/errors.cpp; add a code there and here.
#pragma once

#include "harness/core/error_code.hpp"

namespace harness::sandbox {

enum class errc {
  bad_request = 1,
  shutting_down,
};

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::sandbox

template <>
struct boost::system::is_error_code_enum<harness::sandbox::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::sandbox::errc> = 2;

namespace harness::sandbox {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::sandbox
