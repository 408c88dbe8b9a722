#include "harness/secrets/errors.hpp"

namespace harness::secrets {

const harness::error_category& errc_category() noexcept {
  static constexpr harness::errc_row rows[] = HARNESS_ERRC_ROWS(HARNESS_SECRETS_ERRORS);
  static const harness::errc_table_category instance("secrets", rows);
  return instance;
}

}  // namespace harness::secrets
