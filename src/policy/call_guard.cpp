#include "harness/policy/call_guard.hpp"

#include <fmt/format.h>

namespace harness::policy {

call_guard::call_guard(std::shared_ptr<policy_source> source, annotations_lookup annotations)
    : source_(std::move(source)), annotations_(std::move(annotations)) {}

tool_decision call_guard::decide(const std::string& tool) {
  auto policy = source_->current();
  nlohmann::json annotations = annotations_ && policy->uses_annotations() ? annotations_(tool) : nlohmann::json();
  return policy->decide(tool, annotations);
}

status call_guard::admit(const std::string& tool) {
  auto decision = decide(tool);
  if (decision.approval == approval_mode::deny) {
    return make_error(errc::tool_denied, fmt::format("the tool policy denies calls of {} ({})", tool, decision.reason),
                      "use another tool, or ask the operator to change TOOL_POLICY_FILE");
  }
  if (decision.approval == approval_mode::ask) {
    return make_error(
        errc::approval_required,
        fmt::format("a call of {} needs approval ({}), and nobody can be asked for it here", tool, decision.reason),
        "go on without this call, or ask the operator to change TOOL_POLICY_FILE");
  }
  auto& made = calls_[tool];
  if (decision.max_calls_per_task && made >= *decision.max_calls_per_task) {
    return make_error(errc::call_limit,
                      fmt::format("this task has made its {} calls of {} allowed by the tool policy ({})",
                                  *decision.max_calls_per_task, tool, decision.reason),
                      "do the rest without this tool, or with fewer calls (batch the work into one call)");
  }
  ++made;
  return {};
}

pii_grant call_guard::grant(const std::string& tool) {
  return decide(tool).pii;
}

}  // namespace harness::policy
