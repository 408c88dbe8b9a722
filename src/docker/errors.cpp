#include "harness/docker/errors.hpp"

namespace harness::docker {

const harness::error_category& errc_category() noexcept {
  static constexpr harness::errc_row rows[] = HARNESS_ERRC_ROWS(HARNESS_DOCKER_ERRORS);
  static const harness::errc_table_category instance("docker", rows);
  return instance;
}

}  // namespace harness::docker
