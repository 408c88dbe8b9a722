#include "task_record.hpp"

#include <ctime>

#include <fmt/format.h>

#include "harness/core/logging.hpp"

namespace harness::agent {

using json = nlohmann::json;

json iso_time(std::int64_t epoch_ms) {
  if (epoch_ms <= 0) return nullptr;
  std::time_t seconds = static_cast<std::time_t>(epoch_ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                     utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(epoch_ms % 1000));
}

json transcript_json(const live_task& task) {
  json out = json::array();
  for (const auto& m : task.transcript->request_messages()) out.push_back(llm::to_json(m));
  return out;
}

json task_summary(const store::task_record& r) {
  json out{{"taskId", r.id},
           {"conversationId", r.conversation_id},
           {"status", r.status},
           {"result", r.result},
           {"turns", r.turns},
           {"usage", {{"inputTokens", r.input_tokens}, {"outputTokens", r.output_tokens}}},
           {"durationMs", r.finished_ms ? json(r.finished_ms - r.created_ms) : json(nullptr)}};
  if (!r.error.is_null()) out["error"] = r.error;
  return out;
}

json task_view(const store::task_record& r, bool with_transcript) {
  json out = task_summary(r);
  out["userId"] = r.user_id;
  out["task"] = r.task;
  out["mode"] = r.mode;
  out["createdAt"] = iso_time(r.created_ms);
  out["startedAt"] = iso_time(r.started_ms);
  out["finishedAt"] = iso_time(r.finished_ms);
  if (with_transcript) out["transcript"] = r.transcript;
  return out;
}

void save_conversation(const loop_context& context, const live_task& task) {
  store::conversation_record c;
  c.id = task.record.conversation_id;
  c.user_id = task.record.user_id;
  c.messages = json::array();
  for (const auto& m : task.transcript->messages()) c.messages.push_back(llm::to_json(m));
  c.vault = task.vault->to_json();
  c.created_ms = task.conversation_created_ms;
  c.updated_ms = now_ms();
  auto saved = context.deps.store->save_conversation(c);
  if (!saved) core::log_error("conversation {} not saved: {}", c.id, saved.error().describe());
}

}  // namespace harness::agent
