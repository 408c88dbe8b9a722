// The tool policy applied to one task's (or one session's) calls: whether the
// next call of a tool may go ahead, and which PII kinds its arguments may
// carry as raw values. Counts the calls for maxCallsPerTask. One per task or
// session, on its executor (not thread-safe).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"
#include "harness/policy/policy_source.hpp"

namespace harness::policy {

// A tool's MCP annotations (null when unknown).
using annotations_lookup = std::function<nlohmann::json(const std::string& tool)>;

class call_guard {
 public:
  call_guard(std::shared_ptr<policy_source> source, annotations_lookup annotations);

  // Ok when the policy lets the code call `tool` now (the call is counted);
  // else tool_denied, call_limit or approval_required, with a message the
  // code can show. (Until approvals can be asked for, "ask" is refused with
  // approval_required.)
  status admit(const std::string& tool);

  // The PII kinds `tool` may get back for tokens in its arguments.
  pii_grant grant(const std::string& tool);

  // What the policy says of `tool` now.
  tool_decision decide(const std::string& tool);

 private:
  std::shared_ptr<policy_source> source_;
  annotations_lookup annotations_;
  std::map<std::string, std::size_t> calls_;  // per tool, admitted so far
};

}  // namespace harness::policy
