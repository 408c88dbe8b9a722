#include "live_task.hpp"

#include "harness/core/spawn_logged.hpp"

namespace harness::agent {
namespace {

// Waits out the task's wall-clock limit; stops the task when it passes. A
// cancel (the task's end, or an approval holding the limit) ends this.
boost::asio::awaitable<void> watch_deadline(std::shared_ptr<live_task> task) {
  bool expired = co_await task->deadline_timer->wait();
  if (expired && task->past_deadline()) task->request_stop(stop_reason::timed_out);
}

std::string_view stop_words(stop_reason reason) {
  switch (reason) {
    case stop_reason::cancelled:
      return "the task was cancelled";
    case stop_reason::timed_out:
      return "the task ran out of time";
    case stop_reason::interrupted:
      return "the server is shutting down";
    case stop_reason::none:
      break;
  }
  return "the task is ending";
}

}  // namespace

void live_task::request_stop(stop_reason reason) {
  if (finished || stop != stop_reason::none) return;
  stop = reason;
  if (llm_in_flight) llm_cancel.emit(boost::asio::cancellation_type::terminal);
  if (approvals) approvals->close(std::string(stop_words(reason)));
  if (sandbox) sandbox->kill();
}

void live_task::arm_deadline() {
  deadline_timer->expires_at(deadline);
  auto watch = watch_deadline(shared_from_this());
  core::spawn_logged(executor_, std::move(watch), "task deadline watch");
}

void live_task::hold_deadline() {
  if (deadline_held_ || finished) return;
  deadline_held_ = true;
  held_since_ = clock_.steady_now();
  deadline_timer->cancel();
}

void live_task::release_deadline() {
  if (!deadline_held_) return;
  deadline_held_ = false;
  if (finished || ending || stop != stop_reason::none) return;
  deadline += clock_.steady_now() - held_since_;
  arm_deadline();
}

}  // namespace harness::agent
