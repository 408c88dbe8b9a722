#include "harness/skills/errors.hpp"

namespace harness::skills {

const harness::error_category& errc_category() noexcept {
  static constexpr harness::errc_row rows[] = HARNESS_ERRC_ROWS(HARNESS_SKILLS_ERRORS);
  static const harness::errc_table_category instance("skills", rows);
  return instance;
}

}  // namespace harness::skills
