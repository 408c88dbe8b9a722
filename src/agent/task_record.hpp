// The JSON shapes of a task (its view, its summary, its transcript) and the
// conversation write-back at a task's end.
#pragma once

#include <nlohmann/json.hpp>

#include "harness/store/task_store.hpp"
#include "live_task.hpp"
#include "task_loop.hpp"

namespace harness::agent {

// The messages as the LLM saw them (tokenized), system prompt first.
nlohmann::json transcript_json(const live_task& task);

// {"taskId","conversationId","status","result","error"?,"turns","usage","durationMs"}
nlohmann::json task_summary(const store::task_record& record);

// task_summary plus userId, task, mode, createdAt, startedAt, finishedAt, and the transcript when asked.
nlohmann::json task_view(const store::task_record& record, bool with_transcript);

// Stores the conversation's messages (this task's included) and its vault.
void save_conversation(const loop_context& context, const live_task& task);

// "2026-11-30T01:02:03.456Z", or null for 0.
nlohmann::json iso_time(std::int64_t epoch_ms);

}  // namespace harness::agent
