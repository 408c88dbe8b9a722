#include "harness/pii/errors.hpp"

namespace harness::pii {

const harness::error_category& errc_category() noexcept {
  static constexpr harness::errc_row rows[] = HARNESS_ERRC_ROWS(HARNESS_PII_ERRORS);
  static const harness::errc_table_category instance("pii", rows);
  return instance;
}

}  // namespace harness::pii
