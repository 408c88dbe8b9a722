// The error codes of the docker component (the Docker Engine API client). Each code is one row of the table below:
// X(enumerator, the wire name clients read, the HTTP status); adding the row is all a new code takes, and a wire name
// never changes (clients depend on it).
#pragma once

#include "harness/core/errc_table.hpp"

#define HARNESS_DOCKER_ERRORS(X)                    \
  X(unreachable, "docker_unreachable", 503)         \
  X(timeout, "docker_timeout", 503)                 \
  X(protocol_error, "docker_protocol_error", 503)   \
  X(api_version, "docker_api_version", 503)         \
  X(bad_request, "docker_bad_request", 503)         \
  X(not_found, "docker_not_found", 503)             \
  X(image_not_found, "docker_image_not_found", 503) \
  X(conflict, "docker_conflict", 503)               \
  X(engine_error, "docker_engine_error", 503)

namespace harness::docker {

enum class errc { HARNESS_ERRC_ENUMERATORS(HARNESS_DOCKER_ERRORS) };

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::docker

template <>
struct boost::system::is_error_code_enum<harness::docker::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::docker::errc> = HARNESS_ERRC_COUNT(HARNESS_DOCKER_ERRORS);

namespace harness::docker {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::docker
