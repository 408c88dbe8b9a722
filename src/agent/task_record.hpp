// A task's record as the service shows it (task_view), the summary its "end"
// event carries, and the conversation write-back at a task's end.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/agent/agent_manager.hpp"
#include "harness/store/task_store.hpp"
#include "live_task.hpp"
#include "task_loop.hpp"

namespace harness::agent {

// The messages as the LLM saw them (tokenized), system prompt first.
nlohmann::json transcript_json(const live_task& task);

// The data of a task's "end" event: {"taskId","conversationId","status",
// "result","error"?,"turns","usage","durationMs"}.
nlohmann::json task_summary(const store::task_record& record);

// The view of a record; with_transcript copies its transcript in.
task_view view_of(const store::task_record& record, bool with_transcript);

// Stores the conversation's messages (this task's included) and its vault.
boost::asio::awaitable<void> save_conversation(const loop_context& context, const live_task& task);

}  // namespace harness::agent
