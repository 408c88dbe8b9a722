#include "harness/agent/errors.hpp"

namespace harness::agent {

const harness::error_category& errc_category() noexcept {
  static constexpr harness::errc_row rows[] = HARNESS_ERRC_ROWS(HARNESS_AGENT_ERRORS);
  static const harness::errc_table_category instance("agent", rows);
  return instance;
}

}  // namespace harness::agent
