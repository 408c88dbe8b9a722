#include "harness/policy/errors.hpp"

namespace harness::policy {

const harness::error_category& errc_category() noexcept {
  static constexpr harness::errc_row rows[] = HARNESS_ERRC_ROWS(HARNESS_POLICY_ERRORS);
  static const harness::errc_table_category instance("policy", rows);
  return instance;
}

}  // namespace harness::policy
