#include "harness/policy/call_guard.hpp"

#include <fmt/format.h>

namespace harness::policy {

call_guard::call_guard(std::shared_ptr<policy_source> source, annotations_lookup annotations, caller_identity who)
    : source_(std::move(source)), annotations_(std::move(annotations)), who_(std::move(who)) {}

tool_decision call_guard::decide(const std::string& tool) {
  auto policy = source_->current();
  nlohmann::json annotations = annotations_ && policy->uses_annotations() ? annotations_(tool) : nlohmann::json();
  return policy->decide(tool, annotations, who_);
}

result<call_guard::admission> call_guard::admit(const std::string& tool) {
  auto decision = decide(tool);
  if (decision.approval == approval_mode::deny) {
    return make_error(errc::tool_denied, fmt::format("the tool policy denies calls of {} ({})", tool, decision.reason),
                      "use another tool, or ask the operator to change TOOL_POLICY_FILE");
  }
  if (decision.approval == approval_mode::ask && !approved_for_task_.contains(tool)) {
    // The limit is checked now too: a call that could not be made is not put to anyone.
    auto made = calls_.find(tool);
    if (decision.max_calls_per_task && made != calls_.end() && made->second >= *decision.max_calls_per_task) {
      return count(tool, decision).error();
    }
    return admission{decision.reason};
  }
  if (auto counted = count(tool, decision); !counted) return counted.error();
  return admission{};
}

status call_guard::approved(const std::string& tool, bool for_task) {
  // The file may have changed while the call waited: a tool denied now stays denied.
  auto decision = decide(tool);
  if (decision.approval == approval_mode::deny) {
    return make_error(errc::tool_denied,
                      fmt::format("the tool policy denies calls of {} now ({}); it changed while the call waited", tool,
                                  decision.reason),
                      "use another tool, or ask the operator to change TOOL_POLICY_FILE");
  }
  if (for_task) approved_for_task_.insert(tool);
  return count(tool, decision);
}

status call_guard::count(const std::string& tool, const tool_decision& decision) {
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
