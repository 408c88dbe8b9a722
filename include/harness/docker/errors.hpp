// The error codes of the docker component (the Docker Engine API client). Each value has
// its wire name and HTTP status in src/docker/errors.cpp; add a code there and here.
#pragma once

#include "harness/core/error_code.hpp"

namespace harness::docker {

enum class errc {
  unreachable = 1,
  timeout,
  protocol_error,
  api_version,
  bad_request,
  not_found,
  image_not_found,
  conflict,
  engine_error,
};

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::docker

template <>
struct boost::system::is_error_code_enum<harness::docker::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::docker::errc> = 9;

namespace harness::docker {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::docker
