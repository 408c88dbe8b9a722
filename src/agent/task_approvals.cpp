#include "task_approvals.hpp"

#include "harness/core/utf8.hpp"

namespace harness::agent {
namespace {

using json = nlohmann::json;

// Of the block's code in each approval_requested event (GET /tasks/{id} shows it whole while it waits).
constexpr std::size_t max_event_code = 8 * 1024;

json requested_event(const approval_view& v, std::chrono::milliseconds timeout) {
  std::string code = v.code;
  if (code.size() > max_event_code) code = code.substr(0, core::utf8_boundary(code, max_event_code)) + "\n[cut]";
  return {{"approvalId", v.id},      {"tool", v.tool},     {"arguments", v.arguments},
          {"code", std::move(code)}, {"reason", v.reason}, {"timeoutMs", timeout.count()}};
}

json decided_event(const approval_view& v, const policy::approval_answer& answer) {
  json out{{"approvalId", v.id},
           {"tool", v.tool},
           {"decision", policy::to_string(answer.outcome)},
           {"scope", answer.for_task ? "task" : "call"}};
  if (!answer.reason.empty()) out["reason"] = answer.reason;
  // Who decided: the API key's id (null for a timeout, a task that ended, or an open server).
  out["keyId"] = answer.decided_by.empty() ? json(nullptr) : json(answer.decided_by);
  return out;
}

void set_status(live_task& task, task_status status, const std::function<void(const store::task_record&)>& save) {
  if (task.record.status == status) return;
  task.record.status = status;
  task.events.append("status", {{"status", to_string(status)}});
  if (save) save(task.record);
}

}  // namespace

void attach_approvals(const std::shared_ptr<live_task>& task, core::clock& clock, std::chrono::milliseconds timeout,
                      std::function<void(const store::task_record&)> save) {
  // The desk belongs to the task: its hooks hold the task weakly.
  std::weak_ptr<live_task> weak = task;
  approval_desk::hooks on;
  on.shown = [weak](const json& arguments) {
    auto t = weak.lock();
    return t && t->transcript ? t->transcript->json_from_sandbox(arguments) : arguments;
  };
  on.requested = [weak, timeout, save](const approval_view& v) {
    auto t = weak.lock();
    if (!t || t->finished) return;
    if (t->record.status == task_status::running && t->stop == stop_reason::none && !t->ending) {
      set_status(*t, task_status::awaiting_approval, save);
      t->hold_deadline();
    }
    t->events.append("approval_requested", requested_event(v, timeout));
  };
  on.decided = [weak, save](const approval_view& v, const policy::approval_answer& answer) {
    auto t = weak.lock();
    if (!t || t->finished) return;
    t->events.append("approval_decided", decided_event(v, answer));
    // A task that is stopping or ending keeps its status for finish() to set.
    if (t->stop != stop_reason::none || t->ending) return;
    if (!t->approvals->waiting() && t->record.status == task_status::awaiting_approval) {
      set_status(*t, task_status::running, save);
      t->release_deadline();
    }
  };
  task->approvals = std::make_shared<approval_desk>(clock, timeout, std::move(on));
  task->filter->set_approver(task->approvals);
}

}  // namespace harness::agent
