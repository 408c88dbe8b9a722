// The tool policy's settings: TOOL_POLICY_FILE, APPROVAL_DEFAULT and APPROVAL_TIMEOUT_MS.
#pragma once

#include <chrono>
#include <filesystem>
#include <vector>

#include "harness/core/error.hpp"
#include "harness/core/settings.hpp"
#include "harness/policy/tool_policy.hpp"

namespace harness::policy {

std::vector<core::setting_spec> policy_setting_specs();

struct policy_config {
  std::filesystem::path file;  // empty: no policy (every call allowed, every value restored)
  approval_default fallback = approval_default::never;
  // How long a call that needs approval waits for a decision; then it is denied.
  std::chrono::milliseconds approval_timeout{300000};
};

result<policy_config> load_policy_config(const core::settings& settings);

}  // namespace harness::policy
