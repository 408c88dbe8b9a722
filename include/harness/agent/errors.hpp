// The error codes of the agent component (agent tasks: admission, the loop, conversations). Each code is one row of the
// table below: X(enumerator, the wire name clients read, the HTTP status); adding the row is all a new code takes, and
// a wire name never changes (clients depend on it).
#pragma once

#include "harness/core/errc_table.hpp"

#define HARNESS_AGENT_ERRORS(X)                                                           \
  X(stopping, "agent_stopping", 503)                                                      \
  X(user_busy, "user_busy", 429)                                                          \
  X(agent_busy, "agent_busy", 429)                                                        \
  X(conversation_not_found, "conversation_not_found", 404)                                \
  X(conversation_busy, "conversation_busy", 409)                                          \
  X(task_finished, "task_finished", 409)                                                  \
  X(task_timeout, "task_timeout", 503)                                                    \
  X(interrupted, "interrupted", 503)                                                      \
  X(max_turns, "max_turns", 503)                                                          \
  X(budget_exceeded, "budget_exceeded", 503)                                              \
  /* no approval of that id in the task (never asked, or the task ended) */               \
  X(approval_not_found, "approval_not_found", 404)                                        \
  /* the approval was decided already (or timed out) */                                   \
  X(approval_decided, "approval_decided", 409)                                            \
  /* the task runs on another replica (its owner), which alone can cancel it or decide */ \
  /* 421: Misdirected Request: another replica holds it */                                \
  X(task_elsewhere, "task_elsewhere", 421)                                                \
  /* no LLM is configured: tasks cannot start (stored ones are still served) */           \
  X(no_llm, "llm_not_configured", 503)                                                    \
  /* POST /task asked for a language this server runs no sandboxes of */                  \
  X(language_unavailable, "language_unavailable", 400)

namespace harness::agent {

enum class errc { HARNESS_ERRC_ENUMERATORS(HARNESS_AGENT_ERRORS) };

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::agent

template <>
struct boost::system::is_error_code_enum<harness::agent::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::agent::errc> = HARNESS_ERRC_COUNT(HARNESS_AGENT_ERRORS);

namespace harness::agent {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::agent
