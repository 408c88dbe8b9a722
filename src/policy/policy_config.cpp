#include "harness/policy/policy_config.hpp"

namespace harness::policy {

std::vector<core::setting_spec> policy_setting_specs() {
  return {
      {"TOOL_POLICY_FILE", "",
       "JSON rules for the tool calls code makes: approval, PII kinds per tool, maxCallsPerTask (docs/POLICY.md); "
       "changes apply without a restart; empty: every call allowed"},
      {"APPROVAL_DEFAULT", "never",
       "approval of a tool no rule gives one: never, or annotations (destructiveHint or openWorldHint: ask)"},
      {"APPROVAL_TIMEOUT_MS", "300000",
       "how long a call that needs approval waits for a decision (the block's own limit stops meanwhile); then it "
       "is denied"},
  };
}

result<policy_config> load_policy_config(const core::settings& settings) {
  policy_config c;
  c.file = settings.get("TOOL_POLICY_FILE");
  auto fallback = settings.get_choice("APPROVAL_DEFAULT", {"never", "annotations"});
  if (!fallback) return fallback.error();
  c.fallback = *fallback == "annotations" ? approval_default::annotations : approval_default::never;
  auto timeout = settings.get_int("APPROVAL_TIMEOUT_MS", 100, 24LL * 3600 * 1000);
  if (!timeout) return timeout.error();
  c.approval_timeout = std::chrono::milliseconds(*timeout);
  return c;
}

}  // namespace harness::policy
