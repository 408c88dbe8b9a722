#include "harness/net/errors.hpp"

namespace harness::net {

const harness::error_category& errc_category() noexcept {
  static constexpr harness::errc_row rows[] = HARNESS_ERRC_ROWS(HARNESS_NET_ERRORS);
  static const harness::errc_table_category instance("net", rows);
  return instance;
}

}  // namespace harness::net
