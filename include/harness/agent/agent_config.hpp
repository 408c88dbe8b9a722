// Settings of the agent loop (AGENT_*): how long and how far one task may go,
// and how many tasks run at once.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/bridge/runtime_session.hpp"
#include "harness/core/error.hpp"
#include "harness/core/settings.hpp"
#include "harness/sandbox/language.hpp"

namespace harness::agent {

struct agent_config {
  int max_turns = 20;                              // LLM calls per task (AGENT_MAX_TURNS)
  std::int64_t token_budget = 200000;              // input + output tokens per task (AGENT_TOKEN_BUDGET)
  std::chrono::milliseconds task_timeout{600000};  // wall clock per task (AGENT_TASK_TIMEOUT_MS)
  std::chrono::milliseconds exec_timeout{30000};   // one code block (SANDBOX_TIMEOUT_MS)
  std::size_t max_concurrent = 4;                  // tasks running at once (AGENT_MAX_CONCURRENT)
  std::size_t queue_size = 16;                     // tasks waiting behind them (AGENT_QUEUE_SIZE)
  std::size_t max_per_user = 2;                    // running + queued per user (AGENT_MAX_TASKS_PER_USER)
  std::size_t observation_max_chars = 8000;        // longer observations are cut (AGENT_OBSERVATION_MAX_CHARS)
  // The language a task's code is written in when its request names none (AGENT_LANGUAGE).
  sandbox::language language = sandbox::language::javascript;
  bridge::session_limits limits;  // the sandbox's (SANDBOX_LOG_BYTES, ...)
  // STORE_RESULTS=tokenized: the store keeps a task's answer with its tokens
  // (its record, its final and end events); the caller of the live task
  // still gets the values restored.
  bool store_tokenized_results = false;
  // How long a call that needs approval waits for a decision (APPROVAL_TIMEOUT_MS).
  std::chrono::milliseconds approval_timeout{300000};
  // The replica's name (SANDBOX_OWNER, set by the app with the sandbox's
  // settings): the owner of the tasks it runs.
  std::string owner = "mcp-harness";
  // How long a task's lease lasts (TASK_LEASE_MS): the replica renews it every
  // third of that; a task whose lease passed is marked interrupted by any replica.
  std::chrono::milliseconds lease{30000};
};

std::vector<core::setting_spec> agent_setting_specs();

// `exec_timeout` and `limits` come from the sandbox settings (SANDBOX_TIMEOUT_MS, ...).
result<agent_config> load_agent_config(const core::settings& settings, std::chrono::milliseconds exec_timeout,
                                       bridge::session_limits limits);

}  // namespace harness::agent
