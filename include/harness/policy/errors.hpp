// The error codes of the policy component (the tool policy file and its rules). Each code is one row of the table
// below: X(enumerator, the wire name clients read, the HTTP status); adding the row is all a new code takes, and a wire
// name never changes (clients depend on it).
#pragma once

#include "harness/core/errc_table.hpp"

#define HARNESS_POLICY_ERRORS(X)                                   \
  /* TOOL_POLICY_FILE cannot be read, or breaks the format */      \
  /* 500: the operator's file: the server's own configuration */   \
  X(invalid_policy, "invalid_policy", 500)                         \
  /* a rule says "approval": "deny" for the tool */                \
  X(tool_denied, "tool_denied", 403)                               \
  /* the task made the rule's maxCallsPerTask calls of the tool */ \
  X(call_limit, "call_limit", 429)                                 \
  /* the tool needs approval and nobody can be asked */            \
  X(approval_required, "approval_required", 403)                   \
  /* the approver said no (or the task ended while it waited) */   \
  X(approval_denied, "approval_denied", 403)                       \
  /* nobody decided within APPROVAL_TIMEOUT_MS */                  \
  X(approval_timeout, "approval_timeout", 403)

namespace harness::policy {

enum class errc { HARNESS_ERRC_ENUMERATORS(HARNESS_POLICY_ERRORS) };

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::policy

template <>
struct boost::system::is_error_code_enum<harness::policy::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::policy::errc> = HARNESS_ERRC_COUNT(HARNESS_POLICY_ERRORS);

namespace harness::policy {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::policy
