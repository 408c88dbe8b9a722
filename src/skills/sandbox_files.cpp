#include "harness/skills/sandbox_files.hpp"

#include <algorithm>

#include "exec_files.hpp"
#include "harness/core/logging.hpp"
#include "harness/skills/skill_library.hpp"
#include "harness/skills/workspace_store.hpp"

namespace harness::skills {
namespace {

class sandbox_files_impl final : public execution::sandbox_files {
 public:
  sandbox_files_impl(std::shared_ptr<skill_library> skills, std::shared_ptr<workspace_store> workspaces)
      : skills_(std::move(skills)), workspaces_(std::move(workspaces)) {}

  std::vector<execution::skill_brief> skills(const std::string& user_id) override {
    std::vector<execution::skill_brief> out;
    if (!skills_) return out;
    auto list = skills_->list(user_id);
    if (!list) {
      core::log_warn("skills of user {} not listed for the prompt: {}", user_id, list.error().describe());
      return out;
    }
    for (const auto& entry : *list) {
      bool example = entry.value("owner", "") == "example";
      std::string name = entry.value("name", "");
      std::string description = entry.value("description", "");
      if (entry.contains("problem")) {
        if (example) continue;  // a broken shipped example is ours to fix, not the model's
        description = "[broken: " + entry.value("problem", "") + "] " + description;
      }
      out.push_back({name, description, (example ? "/skills/examples/" : "/skills/") + name});
    }
    return out;
  }

  std::vector<bridge::init_file> init_files(const std::string& user_id, const std::string& workspace_id) override {
    std::vector<bridge::init_file> out;
    if (skills_) out = skills_->init_files(user_id);
    if (workspaces_ && !workspace_id.empty()) {
      auto more = workspaces_->init_files(workspace_id);
      out.insert(out.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
    return out;
  }

  std::vector<bridge::init_file> shared_files() override {
    return skills_ ? skills_->example_files() : std::vector<bridge::init_file>{};
  }

  nlohmann::json apply(const std::string& user_id, const std::string& workspace_id,
                       const std::vector<bridge::file_change>& changes) override {
    if (!workspace_id.empty()) {
      return apply_exec_files(skills_.get(), workspaces_.get(), user_id, workspace_id, changes).to_sandbox_json();
    }
    // No workspace on the host (an /execute sandbox): its /workspace lives as long as the sandbox.
    std::vector<bridge::file_change> kept;
    std::copy_if(changes.begin(), changes.end(), std::back_inserter(kept),
                 [](const bridge::file_change& c) { return c.root != "workspace"; });
    auto report = apply_exec_files(skills_.get(), nullptr, user_id, workspace_id, kept);
    report.workspace = {};
    return report.to_sandbox_json();
  }

 private:
  std::shared_ptr<skill_library> skills_;
  std::shared_ptr<workspace_store> workspaces_;
};

}  // namespace

std::shared_ptr<execution::sandbox_files> create_sandbox_files(std::shared_ptr<skill_library> skills,
                                                               std::shared_ptr<workspace_store> workspaces) {
  return std::make_shared<sandbox_files_impl>(std::move(skills), std::move(workspaces));
}

}  // namespace harness::skills
