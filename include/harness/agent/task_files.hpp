// What the agent needs from the skills and workspace folders on the host: the
// files a task's sandbox starts with, the skills to list in the prompt, and the
// write-back of what a code block changed. The app adapts the skills component
// to it; tests use a fake or nothing (a null task_files means no files at all).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/bridge/runtime_session.hpp"

namespace harness::agent {

struct skill_brief {
  std::string name;
  std::string description;
  std::string path;  // where the code finds it in the sandbox ("/skills/<name>")
};

class task_files {
 public:
  virtual ~task_files() = default;
  // The user's skills and the shared examples, for the system prompt.
  virtual std::vector<skill_brief> skills(const std::string& user_id) = 0;
  // What the `init` frame carries: the user's skills and the task's workspace.
  virtual std::vector<bridge::init_file> init_files(const std::string& user_id, const std::string& task_id) = 0;
  // Validates and writes back the files one block changed. Returns
  // {"written": [paths], "refused": [{"path", "op", "reason"}]}.
  virtual nlohmann::json apply(const std::string& user_id, const std::string& task_id,
                               const std::vector<bridge::file_change>& changes) = 0;
};

}  // namespace harness::agent
