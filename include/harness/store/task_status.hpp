// Where an agent task stands. The enum is what code compares; the strings
// ("queued", "timed_out", ...) exist only at the wire and storage boundary,
// through to_string() and task_status_from_string().
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace harness::store {

enum class task_status {
  queued,             // admitted, waiting for a slot
  running,            // its loop runs
  awaiting_approval,  // its loop runs, and a tool call of its code waits for a person's decision
  succeeded,          // the LLM gave a final answer
  failed,             // the LLM or the sandbox failed for good
  cancelled,          // DELETE /tasks/{id}
  timed_out,          // ran past AGENT_TASK_TIMEOUT_MS
  interrupted,        // the server shut down (or crashed) while it was queued or ran
  max_turns,          // used AGENT_MAX_TURNS LLM calls without a final answer
  budget_exceeded,    // used more than AGENT_TOKEN_BUDGET tokens
};

inline constexpr std::array<task_status, 10> all_task_statuses{
    task_status::queued,    task_status::running,        task_status::awaiting_approval, task_status::succeeded,
    task_status::failed,    task_status::cancelled,      task_status::timed_out,         task_status::interrupted,
    task_status::max_turns, task_status::budget_exceeded};

// The task has ended (every status but queued, running and awaiting_approval); it never changes again.
constexpr bool is_terminal(task_status s) {
  return s != task_status::queued && s != task_status::running && s != task_status::awaiting_approval;
}

constexpr std::string_view to_string(task_status s) {
  switch (s) {
    case task_status::queued:
      return "queued";
    case task_status::running:
      return "running";
    case task_status::awaiting_approval:
      return "awaiting_approval";
    case task_status::succeeded:
      return "succeeded";
    case task_status::failed:
      return "failed";
    case task_status::cancelled:
      return "cancelled";
    case task_status::timed_out:
      return "timed_out";
    case task_status::interrupted:
      return "interrupted";
    case task_status::max_turns:
      return "max_turns";
    case task_status::budget_exceeded:
      return "budget_exceeded";
  }
  return "unknown";
}

// Empty for a string that names no status.
constexpr std::optional<task_status> task_status_from_string(std::string_view text) {
  for (auto s : all_task_statuses) {
    if (to_string(s) == text) return s;
  }
  return std::nullopt;
}

}  // namespace harness::store
