#include "live_task.hpp"

namespace harness::agent {
namespace {

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

void live_task::start_deadline(core::steady_time at) {
  deadline_.start(at, [weak = weak_from_this()] {
    auto task = weak.lock();
    if (task && !task->ending) task->request_stop(stop_reason::timed_out);
  });
}

}  // namespace harness::agent
