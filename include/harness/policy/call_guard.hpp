// The tool policy applied to one task's (or one session's) calls: whether the
// next call of a tool may go ahead, and which PII kinds its arguments may
// carry as raw values. Counts the calls for maxCallsPerTask. One per task or
// session, on its executor (not thread-safe).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"
#include "harness/policy/policy_source.hpp"

namespace harness::policy {

// A tool's MCP annotations (null when unknown).
using annotations_lookup = std::function<nlohmann::json(const std::string& tool)>;

class call_guard {
 public:
  // `who`: the user (and role) the guarded calls are made for, for rules that name them.
  call_guard(std::shared_ptr<policy_source> source, annotations_lookup annotations, caller_identity who = {});

  // What admit() found: the call may go (and was counted), or someone must
  // approve it first (`ask` holds why; nothing is counted yet).
  struct admission {
    std::optional<std::string> ask{};
  };

  // Whether the policy lets the code call `tool` now: tool_denied or
  // call_limit, with a message the code can show; or an admission, which
  // asks for approval unless the tool was approved for the task already.
  result<admission> admit(const std::string& tool);

  // After an approval of an admission that asked: counts the call (call_limit
  // when concurrent calls used the limit up meanwhile). With `for_task`, later
  // calls of `tool` need no approval.
  status approved(const std::string& tool, bool for_task);

  // The PII kinds `tool` may get back for tokens in its arguments.
  pii_grant grant(const std::string& tool);

  // What the policy says of `tool` now.
  tool_decision decide(const std::string& tool);

 private:
  std::shared_ptr<policy_source> source_;
  annotations_lookup annotations_;
  caller_identity who_;
  status count(const std::string& tool, const tool_decision& decision);

  std::map<std::string, std::size_t> calls_;  // per tool, admitted so far
  std::set<std::string> approved_for_task_;   // "scope": "task" approvals
};

}  // namespace harness::policy
