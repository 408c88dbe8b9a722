// The error codes of the skills component (the skill library and task workspaces). Each code is one row of the table
// below: X(enumerator, the wire name clients read, the HTTP status); adding the row is all a new code takes, and a wire
// name never changes (clients depend on it).
#pragma once

#include "harness/core/errc_table.hpp"

#define HARNESS_SKILLS_ERRORS(X)                                                    \
  X(invalid_user_id, "invalid_user_id", 400)                                        \
  X(invalid_skill_name, "invalid_skill_name", 400)                                  \
  X(invalid_task_id, "invalid_task_id", 400)                                        \
  X(invalid_path, "invalid_path", 400)                                              \
  /* 422: the skill is there, but its SKILL.md cannot be read as one */             \
  X(invalid_skill_md, "invalid_skill_md", 422)                                      \
  X(invalid_duration, "invalid_duration", 500)                                      \
  X(skill_not_found, "skill_not_found", 404)                                        \
  X(skill_read_only, "skill_read_only", 403)                                        \
  X(workspace_not_found, "workspace_not_found", 404)                                \
  X(file_not_found, "file_not_found", 404)                                          \
  /* 422: too large to serve through this route; the sandbox can read it */         \
  X(file_too_large, "file_too_large", 422)                                          \
  /* 403: the server's folder has a symlink on the path: refused, never followed */ \
  X(host_symlink, "host_symlink", 403)                                              \
  /* 409: a file where a folder is needed, or the other way round */                \
  X(path_conflict, "path_conflict", 409)                                            \
  /* 503: the disk failed (errno in the message): worth a retry later */            \
  X(storage_error, "storage_error", 503)

namespace harness::skills {

enum class errc { HARNESS_ERRC_ENUMERATORS(HARNESS_SKILLS_ERRORS) };

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::skills

template <>
struct boost::system::is_error_code_enum<harness::skills::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::skills::errc> = HARNESS_ERRC_COUNT(HARNESS_SKILLS_ERRORS);

namespace harness::skills {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::skills
