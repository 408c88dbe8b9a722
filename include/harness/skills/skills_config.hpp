// Settings of the skill library and the task workspaces: where they live on
// the host, the caps on what a sandbox may write back, and how long a
// workspace is kept.
#pragma once

#include <chrono>
#include <filesystem>
#include <string_view>
#include <vector>

#include "harness/core/settings.hpp"
#include "harness/skills/file_rules.hpp"

namespace harness::skills {

struct skill_config {
  // Holds examples/<name>/ (shipped, read-only) and users/<userId>/<name>/.
  std::filesystem::path dir = "skills";
  // Per user, over all of that user's skills.
  file_caps caps{.max_file_bytes = 1 << 20, .max_total_bytes = 10 << 20, .max_files = 200};
};

struct workspace_config {
  // Holds <taskId>/ per task.
  std::filesystem::path dir = "workspace";
  // Per task.
  file_caps caps{.max_file_bytes = 1 << 20, .max_total_bytes = 50 << 20, .max_files = 500};
  // A workspace whose newest file is older than this is removed by the sweep.
  std::chrono::seconds retention = std::chrono::hours(24);
  // How often the sweep runs: retention / 24, between one minute and one hour.
  std::chrono::seconds sweep_interval() const;
};

struct skills_config {
  skill_config skills;
  workspace_config workspace;
};

// SKILLS_DIR, WORKSPACE_DIR, WORKSPACE_RETENTION, SKILL_MAX_FILE_BYTES,
// SKILL_MAX_TOTAL_BYTES, SKILL_MAX_FILES, WORKSPACE_MAX_FILE_BYTES,
// WORKSPACE_MAX_TOTAL_BYTES, WORKSPACE_MAX_FILES.
std::vector<core::setting_spec> skills_setting_specs();

// Errors ("invalid_setting") name the setting and the rule it broke.
result<skills_config> load_skills_config(const core::settings& settings);

// "24h", "30m", "90s", "1d", "1h30m" or a bare number of seconds ("3600").
// Error "invalid_duration" when the text is none of those or overflows.
result<std::chrono::seconds> parse_duration(std::string_view text);

}  // namespace harness::skills
