#include "harness/bridge/errors.hpp"

namespace harness::bridge {

const harness::error_category& errc_category() noexcept {
  static constexpr harness::errc_row rows[] = HARNESS_ERRC_ROWS(HARNESS_BRIDGE_ERRORS);
  static const harness::errc_table_category instance("bridge", rows);
  return instance;
}

}  // namespace harness::bridge
