#include "harness/http/errors.hpp"

namespace harness::http {

const harness::error_category& errc_category() noexcept {
  static constexpr harness::errc_row rows[] = HARNESS_ERRC_ROWS(HARNESS_HTTP_ERRORS);
  static const harness::errc_table_category instance("http", rows);
  return instance;
}

}  // namespace harness::http
