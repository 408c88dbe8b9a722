// The rules every file a sandbox writes back must pass before it reaches the
// host (skills and workspaces share them): confined relative paths of plain
// names, no symlinks, caps on size and count. One implementation, used by
// skill_library and workspace_store alike.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace harness::skills {

// Caps of one folder on the host (a user's skills, a task's workspace).
struct file_caps {
  std::size_t max_file_bytes = 1 << 20;
  std::size_t max_total_bytes = 10 << 20;
  std::size_t max_files = 200;
};

// Why a path or a change is refused: a stable snake_case reason and a
// sentence that says what to do (it goes to the LLM as part of the exec result).
struct path_problem {
  std::string reason;
  std::string message;
};

// Limits of the path grammar.
inline constexpr std::size_t max_path_bytes = 512;
inline constexpr std::size_t max_segment_bytes = 128;
inline constexpr std::size_t max_path_depth = 16;

// nullopt when `path` is an acceptable relative path: segments of
// [A-Za-z0-9._-] separated by '/', not absolute, no empty, "." or ".."
// segment, no control character, within the limits above. Otherwise the
// first rule it breaks ("absolute_path", "parent_segment", "dot_segment",
// "empty_segment", "control_character", "invalid_name", "path_too_long").
std::optional<path_problem> check_relative_path(std::string_view path);

// A skill's folder name: [a-z0-9][a-z0-9-]{0,63}.
bool is_skill_name(std::string_view name);

// A user or task id used as a folder name: 1-64 of [A-Za-z0-9._-], and not
// "." or ".." (which would name the parent folder).
bool is_storage_id(std::string_view id);

// One entry of a change set that was not applied.
struct file_refusal {
  std::string path;
  std::string op;
  std::string reason;
  std::string message;
};

// Something the code should know about a file that was applied.
struct file_note {
  std::string path;
  std::string message;
};

// What apply_changes did. Paths are relative to the root ("skills" or
// "workspace") exactly as the sandbox reported them.
struct apply_report {
  std::vector<std::string> written;
  std::vector<std::string> deleted;
  std::vector<file_refusal> refused;
  std::vector<file_note> notes;

  // {"written": [...], "deleted": [...], "refused": [{path, op, reason, message}]},
  // plus "notes": [{path, message}] when there are any.
  nlohmann::json to_json() const;
};

}  // namespace harness::skills
