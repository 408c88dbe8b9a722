#include "exec_files.hpp"

#include <fmt/format.h>

#include "change_set.hpp"
#include "harness/skills/skill_library.hpp"
#include "harness/skills/workspace_store.hpp"

namespace harness::skills {

namespace {

nlohmann::json refusal_json(const file_refusal& r, const std::string& prefix) {
  return {{"path", prefix + r.path}, {"op", r.op}, {"reason", r.reason}, {"message", r.message}};
}

}  // namespace

nlohmann::json exec_files_report::to_json() const {
  nlohmann::json out{{"skills", skills.to_json()}, {"workspace", workspace.to_json()}};
  if (!other_roots.empty()) {
    out["otherRoots"] = nlohmann::json::array();
    for (const auto& r : other_roots) out["otherRoots"].push_back(refusal_json(r, ""));
  }
  return out;
}

nlohmann::json exec_files_report::to_sandbox_json() const {
  nlohmann::json written = nlohmann::json::array(), deleted = nlohmann::json::array(),
                 refused = nlohmann::json::array(), notes = nlohmann::json::array();
  for (const auto& [report, prefix] : {std::pair{&skills, "/skills/"}, std::pair{&workspace, "/workspace/"}}) {
    for (const auto& p : report->written) written.push_back(prefix + p);
    for (const auto& p : report->deleted) deleted.push_back(prefix + p);
    for (const auto& r : report->refused) refused.push_back(refusal_json(r, prefix));
    for (const auto& n : report->notes) notes.push_back({{"path", prefix + n.path}, {"message", n.message}});
  }
  for (const auto& r : other_roots) refused.push_back(refusal_json(r, "/"));
  nlohmann::json out{{"written", std::move(written)}, {"deleted", std::move(deleted)}, {"refused", std::move(refused)}};
  if (!notes.empty()) out["notes"] = std::move(notes);
  return out;
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
    report.other_roots.push_back(
        {f.root + "/" + f.path, f.op, "unknown_root", "only /skills and /workspace are saved"});
  }
  return report;
}

}  // namespace harness::skills
