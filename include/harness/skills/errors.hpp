// The error codes of the skills component (the skill library and task workspaces). Each value has
// its wire name and HTTP status in src/skills/errors.cpp; add a code there and here.
#pragma once

#include "harness/core/error_code.hpp"

namespace harness::skills {

enum class errc {
  invalid_user_id = 1,
  invalid_skill_name,
  invalid_task_id,
  invalid_path,
  invalid_skill_md,
  invalid_duration,
  skill_not_found,
  skill_read_only,
  workspace_not_found,
  file_not_found,
  file_too_large,
  host_symlink,
  path_conflict,
  storage_error,
};

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::skills

template <>
struct boost::system::is_error_code_enum<harness::skills::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::skills::errc> = 14;

namespace harness::skills {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::skills
