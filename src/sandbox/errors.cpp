#include "harness/sandbox/errors.hpp"

namespace harness::sandbox {

const harness::error_category& errc_category() noexcept {
  static constexpr harness::errc_row rows[] = HARNESS_ERRC_ROWS(HARNESS_SANDBOX_ERRORS);
  static const harness::errc_table_category instance("sandbox", rows);
  return instance;
}

}  // namespace harness::sandbox
