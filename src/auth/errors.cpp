#include "harness/auth/errors.hpp"

namespace harness::auth {

const harness::error_category& errc_category() noexcept {
  static constexpr harness::errc_row rows[] = HARNESS_ERRC_ROWS(HARNESS_AUTH_ERRORS);
  static const harness::errc_table_category instance("auth", rows);
  return instance;
}

}  // namespace harness::auth
