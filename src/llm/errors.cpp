#include "harness/llm/errors.hpp"

namespace harness::llm {

const harness::error_category& errc_category() noexcept {
  static constexpr harness::errc_row rows[] = HARNESS_ERRC_ROWS(HARNESS_LLM_ERRORS);
  static const harness::errc_table_category instance("llm", rows);
  return instance;
}

}  // namespace harness::llm
