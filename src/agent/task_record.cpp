#include "task_record.hpp"

#include "harness/pii/vault_seal.hpp"

#include "harness/core/logging.hpp"

namespace harness::agent {

using json = nlohmann::json;

json transcript_json(const live_task& task) {
  json out = json::array();
  for (const auto& m : task.transcript->request_messages()) out.push_back(llm::to_json(m));
  return out;
}

json task_summary(const store::task_record& r) {
  json out{{"taskId", r.id},
           {"conversationId", r.conversation_id},
           {"status", to_string(r.status)},
           {"result", r.result},
           {"turns", r.turns},
           {"usage", {{"inputTokens", r.input_tokens}, {"outputTokens", r.output_tokens}}},
           {"durationMs", r.finished_ms ? json(r.finished_ms - r.created_ms) : json(nullptr)}};
  if (!r.error.is_null()) out["error"] = r.error;
  return out;
}

task_view view_of(const store::task_record& r, bool with_transcript) {
  task_view v;
  v.task_id = r.id;
  v.user_id = r.user_id;
  v.key_id = r.key_id;
  v.conversation_id = r.conversation_id;
  v.task = r.task;
  v.mode = r.mode;
  v.language = r.language;
  v.trace_id = r.trace_id;
  v.status = r.status;
  v.result = r.result;
  v.error = r.error;
  v.turns = r.turns;
  v.input_tokens = r.input_tokens;
  v.output_tokens = r.output_tokens;
  v.created_ms = r.created_ms;
  v.started_ms = r.started_ms;
  v.finished_ms = r.finished_ms;
  if (with_transcript) v.transcript = r.transcript;
  return v;
}

boost::asio::awaitable<void> save_conversation(const loop_context& context, const live_task& task) {
  store::conversation_record c;
  c.id = task.record.conversation_id;
  c.user_id = task.record.user_id;
  c.messages = json::array();
  for (const auto& m : task.transcript->messages()) c.messages.push_back(llm::to_json(m));
  // Sealed at rest when the server has a vault key (every server does; tests may not).
  c.vault = context.deps.sealer ? context.deps.sealer->seal(task.vault->to_json()) : task.vault->to_json();
  c.created_ms = task.conversation_created_ms;
  c.updated_ms = context.clock.epoch_ms();
  auto saved = co_await context.deps.store->save_conversation(c);
  if (!saved) core::log_error("conversation {} not saved: {}", c.id, saved.error().describe());
}

}  // namespace harness::agent
