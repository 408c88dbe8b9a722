// Validation and application of one exec's changed files to one confined
// folder (on disk or in rows): the single implementation behind skill_library::apply_changes and
// workspace_store::apply_changes.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/bridge/runtime_session.hpp"
#include "harness/skills/file_folders.hpp"
#include "harness/skills/file_rules.hpp"

namespace harness::skills {

// A caller's own rule on top of the shared ones (skills: the first segment is
// a skill name and "examples/" is read-only). Sees only paths that passed
// check_relative_path.
using path_rule = std::function<std::optional<path_problem>(const std::string& path)>;

// Takes the entries of `changes` whose root is `root`. Every entry is checked
// on its own (op, path rules, `extra_rule`, symlink and too_large refused,
// per-file cap); then deletes run, then writes in order, each refused when it
// would pass the folder's total-size or file-count cap. A refused entry
// changes nothing on the host; the others are applied. The caller serialises
// calls for the same folder.
apply_report apply_change_set(file_folder& dir, std::string_view root, const std::vector<bridge::file_change>& changes,
                              const file_caps& caps, const path_rule& extra_rule);

// Refuses every entry of `root` with the same reason (an invalid owner id, a
// store that is not configured).
apply_report refuse_all(std::string_view root, const std::vector<bridge::file_change>& changes,
                        const path_problem& why);

}  // namespace harness::skills
