// The tool policy's settings: TOOL_POLICY_FILE and APPROVAL_DEFAULT.
#pragma once

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
};

result<policy_config> load_policy_config(const core::settings& settings);

}  // namespace harness::policy
