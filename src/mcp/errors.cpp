#include "harness/mcp/errors.hpp"

namespace harness::mcp {

const harness::error_category& errc_category() noexcept {
  static constexpr harness::errc_row rows[] = HARNESS_ERRC_ROWS(HARNESS_MCP_ERRORS);
  static const harness::errc_table_category instance("mcp", rows);
  return instance;
}

}  // namespace harness::mcp
