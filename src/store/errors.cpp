#include "harness/store/errors.hpp"

namespace harness::store {

const harness::error_category& errc_category() noexcept {
  static constexpr harness::errc_row rows[] = HARNESS_ERRC_ROWS(HARNESS_STORE_ERRORS);
  static const harness::errc_table_category instance("store", rows);
  return instance;
}

}  // namespace harness::store
