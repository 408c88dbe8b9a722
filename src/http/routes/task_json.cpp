#include "task_json.hpp"

#include "harness/core/clock.hpp"

namespace harness::http {

using json = nlohmann::json;

json iso_time(std::int64_t epoch_ms) {
  if (epoch_ms <= 0) return nullptr;
  return core::iso_utc(epoch_ms);
}

json task_view_json(const agent::task_view& v) {
  json out{{"taskId", v.task_id},
           {"userId", v.user_id},
           {"keyId", v.key_id.empty() ? json(nullptr) : json(v.key_id)},
           {"conversationId", v.conversation_id},
           {"status", to_string(v.status)},
           {"task", v.task},
           {"mode", v.mode},
           {"language", v.language},
           {"traceId", v.trace_id.empty() ? json() : json(v.trace_id)},
           {"result", v.result},
           {"turns", v.turns},
           {"usage", {{"inputTokens", v.input_tokens}, {"outputTokens", v.output_tokens}}},
           {"durationMs", v.finished_ms ? json(v.finished_ms - v.created_ms) : json(nullptr)},
           {"createdAt", iso_time(v.created_ms)},
           {"startedAt", iso_time(v.started_ms)},
           {"finishedAt", iso_time(v.finished_ms)}};
  if (!v.error.is_null()) out["error"] = v.error;
  if (v.transcript) out["transcript"] = *v.transcript;
  if (v.status == agent::task_status::awaiting_approval || !v.pending_approvals.empty()) {
    json pending = json::array();
    for (const auto& a : v.pending_approvals) {
      pending.push_back({{"id", a.id},
                         {"tool", a.tool},
                         {"arguments", a.arguments},
                         {"code", a.code},
                         {"reason", a.reason},
                         {"requestedAt", iso_time(a.requested_ms)},
                         {"expiresAt", iso_time(a.expires_ms)}});
    }
    out["pendingApprovals"] = std::move(pending);
  }
  return out;
}

json cancel_json(const agent::cancel_outcome& outcome) {
  return {{"taskId", outcome.task_id},
          {"status", outcome.state == agent::cancel_state::cancelled ? "cancelled" : "cancelling"}};
}

}  // namespace harness::http
