// The in-memory state of one admitted task, shared by the manager (admission,
// cancellation, views) and the loop that runs it.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/steady_timer.hpp>

#include "harness/execution/data_path.hpp"
#include "harness/execution/sandbox_session.hpp"
#include "harness/llm/types.hpp"
#include "harness/pii/pii_vault.hpp"
#include "harness/store/task_store.hpp"
#include "llm_transcript.hpp"
#include "task_events.hpp"

namespace harness::agent {

struct live_task {
  live_task(boost::asio::any_io_executor executor, std::string id, task_events::sink persist)
      : events(executor, std::move(id), std::move(persist)), deadline_timer(executor) {}

  store::task_record record;
  bool restore_pii = true;
  std::int64_t conversation_created_ms = 0;

  std::shared_ptr<pii::pii_vault> vault;
  // What the LLM is sent: the system prompt and the conversation so far,
  // ending with this task's messages. Set when the task is admitted.
  std::optional<llm_transcript> transcript;
  std::shared_ptr<execution::pii_filter> filter;

  task_events events;
  std::unique_ptr<execution::sandbox_session> sandbox;
  bool sandbox_lost = false;  // a sandbox of this task was stopped: the next one gets a note
  std::string sandbox_loss;   // why, for that note

  // Why the task must stop early: "cancelled", "timed_out", "interrupted"; empty while it may go on.
  std::string stop_reason;
  boost::asio::cancellation_signal llm_cancel;  // aborts the LLM call in flight
  bool llm_in_flight = false;
  boost::asio::steady_timer deadline_timer;
  std::chrono::steady_clock::time_point deadline;
  std::chrono::steady_clock::time_point started;
  bool finished = false;

  // Stops what is in flight: the LLM call and the sandbox's block.
  void request_stop(std::string reason) {
    if (finished || !stop_reason.empty()) return;
    stop_reason = std::move(reason);
    if (llm_in_flight) llm_cancel.emit(boost::asio::cancellation_type::terminal);
    if (sandbox) sandbox->kill();
  }
};

}  // namespace harness::agent
