// run_task: an agent run (what POST /task starts) as a tool of the MCP face,
// for a client that would rather hand a whole job to the harness's own LLM
// loop than write the code itself. The run acts as the caller (their user,
// key and tools), reports each step as progress, puts the approvals its code
// needs to the caller (the session's approver: elicitation in the 2025 era,
// input_required in 2026-07-28), and is cancelled when the call is. In the
// new era a run that lasts becomes a task of the Tasks extension like any
// long execute_code (input_runs.hpp). Offered only when an LLM is configured.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/telemetry/span.hpp"

namespace harness::agent {
class agent_manager;
}
namespace harness::execution {
class block_stop;
}
namespace harness::policy {
class approver;
}

namespace harness::mcp_server {

inline constexpr const char* run_task_tool_name = "run_task";

// Its tools/list entry.
nlohmann::json run_task_definition();

struct task_run_context {
  std::string user_id;
  std::string key_id;
  bool admin = false;
  std::shared_ptr<policy::approver> approver;   // decides the run's approvals (the caller)
  std::function<void(std::string)> progress;    // one line per step (may be empty)
  std::shared_ptr<execution::block_stop> stop;  // requested when the call is cancelled
  telemetry::span_parent trace;                 // the call's span: the task's hangs below it
};

// {task, conversationId?}: submits the run, follows its events to its end,
// and answers a CallToolResult: the final answer as text, and as
// structuredContent {taskId, conversationId, status, result, error, turns,
// inputTokens, outputTokens}; isError unless it succeeded.
boost::asio::awaitable<nlohmann::json> run_task(std::shared_ptr<agent::agent_manager> agent, const nlohmann::json& args,
                                                task_run_context context);

}  // namespace harness::mcp_server
