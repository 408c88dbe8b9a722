#include "harness/core/errors.hpp"

namespace harness::core {

const harness::error_category& errc_category() noexcept {
  static constexpr harness::errc_row rows[] = HARNESS_ERRC_ROWS(HARNESS_CORE_ERRORS);
  static const harness::errc_table_category instance("core", rows);
  return instance;
}

}  // namespace harness::core
