// What the agent calls after each exec: the changed files the runtime reported
// in `done` go to the user's skills (root "skills") and the task's workspace
// (root "workspace"); the report goes back into the observation so the model
// learns what was saved and what was refused.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/bridge/runtime_session.hpp"
#include "harness/skills/file_rules.hpp"

namespace harness::skills {

class skill_library;
class workspace_store;

struct exec_files_report {
  apply_report skills;
  apply_report workspace;
  // Entries whose root is neither "skills" nor "workspace" (path "<root>/<path>").
  std::vector<file_refusal> other_roots;

  // {"skills": {...}, "workspace": {...}} (each as apply_report::to_json),
  // plus "otherRoots": [...] when there are any.
  nlohmann::json to_json() const;
  // One list per outcome with the paths as the code sees them, for the
  // observation: {"written": ["/skills/csv/index.js", "/workspace/out.txt"],
  // "deleted": [...], "refused": [{"path": "/skills/...", "op", "reason", "message"}]}, and
  // "notes": [{"path", "message"}] when there are any.
  nlohmann::json to_sandbox_json() const;
  // True when nothing was refused.
  bool clean() const { return skills.refused.empty() && workspace.refused.empty() && other_roots.empty(); }
};

// Applies `files` to both stores. A null store refuses its entries
// ("skills_unavailable" / "workspace_unavailable"); an entry of another root
// is refused as "unknown_root" (in other_roots). Blocking: run it on the
// thread pool.
exec_files_report apply_exec_files(skill_library* skills, workspace_store* workspace, const std::string& user_id,
                                   const std::string& task_id, const std::vector<bridge::file_change>& files);

}  // namespace harness::skills
