// The error codes of the agent component (agent tasks: admission, the loop, conversations). Each value has
// its wire name and HTTP status in src/agent/errors.cpp; add a code there and here.
#pragma once

#include "harness/core/error_code.hpp"

namespace harness::agent {

enum class errc {
  stopping = 1,
  user_busy,
  agent_busy,
  conversation_not_found,
  conversation_busy,
  task_finished,
  task_timeout,
  interrupted,
  max_turns,
  budget_exceeded,
  approval_not_found,  // no approval of that id in the task (never asked, or the task ended)
  approval_decided,    // the approval was decided already (or timed out)
  task_elsewhere,      // the task runs on another replica (its owner), which alone can cancel it or decide
  no_llm,              // no LLM is configured: tasks cannot start (stored ones are still served)
};

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::agent

template <>
struct boost::system::is_error_code_enum<harness::agent::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::agent::errc> = 14;

namespace harness::agent {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::agent
