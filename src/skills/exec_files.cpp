#include "harness/skills/exec_files.hpp"

#include <fmt/format.h>

#include "change_set.hpp"
#include "harness/skills/skill_library.hpp"
#include "harness/skills/workspace_store.hpp"

namespace harness::skills {

nlohmann::json exec_files_report::to_json() const {
  return {{"skills", skills.to_json()}, {"workspace", workspace.to_json()}};
}

exec_files_report apply_exec_files(skill_library* skills, workspace_store* workspace, const std::string& user_id,
                                   const std::string& task_id, const std::vector<bridge::file_change>& files) {
  exec_files_report report;
  report.skills = skills ? skills->apply_changes(user_id, files)
                         : refuse_all("skills", files, {"skills_unavailable", "this server keeps no skills"});
  report.workspace = workspace
                         ? workspace->apply_changes(task_id, files)
                         : refuse_all("workspace", files, {"workspace_unavailable", "this server keeps no workspaces"});
  for (const auto& f : files) {
    if (f.root == "skills" || f.root == "workspace") continue;
    report.workspace.refused.push_back(
        {f.root + "/" + f.path, f.op, "unknown_root", "only /skills and /workspace are saved"});
  }
  return report;
}

}  // namespace harness::skills
