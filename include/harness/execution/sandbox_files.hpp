// What a sandbox for one user needs from the host's skills and workspace
// folders: the files it starts with, the write-back of what a block changed,
// and the skills to list in an agent's prompt. Tasks and /execute share it, so
// every entry point gets the same skills in and the same validated write-back.
// The app adapts the skills component to it (skills/sandbox_files.hpp); a null
// sandbox_files means no files at all.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/bridge/runtime_session.hpp"

namespace harness::execution {

// A skill's description goes into every later system prompt of its user, so
// only this many bytes of it do (cut at a character, "..." marks the cut);
// the code that saves a longer one is told so in the write-back report.
inline constexpr std::size_t max_prompt_description_bytes = 300;

struct skill_brief {
  std::string name;
  std::string description;
  std::string path;  // where the code finds it in the sandbox ("/skills/<name>")
};

class sandbox_files {
 public:
  virtual ~sandbox_files() = default;
  // The user's skills and the shared examples, for the system prompt.
  virtual std::vector<skill_brief> skills(const std::string& user_id) = 0;
  // What the `init` frame carries: the user's skills and, unless
  // `workspace_id` is empty, that workspace's files.
  virtual std::vector<bridge::init_file> init_files(const std::string& user_id, const std::string& workspace_id) = 0;
  // What every sandbox holds whoever claims it (the example skills): the
  // warm pool writes these before a sandbox is claimed.
  virtual std::vector<bridge::init_file> shared_files() = 0;
  // Validates and writes back the files one block changed. Returns
  // {"written": [paths], "deleted": [paths], "refused": [{"path", "op", "reason", "message"}]}.
  // With `workspace_id` empty, changes under /workspace stay in the sandbox
  // only and are left out of the report.
  virtual nlohmann::json apply(const std::string& user_id, const std::string& workspace_id,
                               const std::vector<bridge::file_change>& changes) = 0;
};

}  // namespace harness::execution
