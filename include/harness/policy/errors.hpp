// The error codes of the policy component (the tool policy file and its
// rules). Each value has its wire name and HTTP status in
// src/policy/errors.cpp; add a code there and here.
#pragma once

#include "harness/core/error_code.hpp"

namespace harness::policy {

enum class errc {
  invalid_policy = 1,  // TOOL_POLICY_FILE cannot be read, or breaks the format
  tool_denied,         // a rule says "approval": "deny" for the tool
  call_limit,          // the task made the rule's maxCallsPerTask calls of the tool
  approval_required,   // the tool needs approval and nobody can be asked
  approval_denied,     // the approver said no (or the task ended while it waited)
  approval_timeout,    // nobody decided within APPROVAL_TIMEOUT_MS
};

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::policy

template <>
struct boost::system::is_error_code_enum<harness::policy::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::policy::errc> = 6;
