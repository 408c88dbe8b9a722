// The in-memory state of one admitted task, shared by the manager (admission,
// cancellation, views) and the loop that runs it.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/cancellation_signal.hpp>

#include "approval_desk.hpp"
#include "harness/core/clock.hpp"
#include "harness/execution/data_path.hpp"
#include "harness/execution/sandbox_session.hpp"
#include "harness/llm/types.hpp"
#include "harness/pii/pii_vault.hpp"
#include "harness/store/task_store.hpp"
#include "llm_transcript.hpp"
#include "task_events.hpp"

namespace harness::agent {

// Why a task must stop before its loop ends on its own. Not a task_status:
// it is a request, which the loop turns into the status it ends with.
enum class stop_reason { none, cancelled, timed_out, interrupted };

struct live_task : std::enable_shared_from_this<live_task> {
  live_task(const boost::asio::any_io_executor& executor, core::clock& clock, std::string id, task_events::sink persist)
      : events(executor, clock, std::move(id), std::move(persist)),
        deadline_timer(clock.make_timer(executor)),
        executor_(executor),
        clock_(clock) {}

  store::task_record record;
  bool restore_pii = true;
  std::int64_t conversation_created_ms = 0;

  std::shared_ptr<pii::pii_vault> vault;
  // What the LLM is sent: the system prompt and the conversation so far,
  // ending with this task's messages. Set when the task is admitted.
  std::optional<llm_transcript> transcript;
  std::shared_ptr<execution::pii_filter> filter;
  // The tool calls waiting for a person (the filter's approver).
  std::shared_ptr<approval_desk> approvals;

  task_events events;
  std::unique_ptr<execution::sandbox_session> sandbox;
  bool sandbox_lost = false;  // a sandbox of this task was stopped: the next one gets a note
  std::string sandbox_loss;   // why, for that note

  // none while it may go on.
  agent::stop_reason stop = stop_reason::none;
  boost::asio::cancellation_signal llm_cancel;  // aborts the LLM call in flight
  bool llm_in_flight = false;
  std::unique_ptr<core::timer> deadline_timer;  // the wall-clock limit (on the manager's clock)
  core::steady_time deadline;
  core::steady_time started;
  bool finished = false;
  bool ending = false;  // finish() has begun

  // Stops what is in flight: the LLM call, the approvals awaited and the
  // sandbox's block. The first reason wins.
  void request_stop(stop_reason reason);

  // Starts the wall-clock limit's watch (at `deadline`).
  void arm_deadline();
  // While a call waits for approval the limit stands still: the release
  // moves `deadline` on by the time held.
  void hold_deadline();
  void release_deadline();
  // The limit has passed and is not held (a timer completion queued before a hold does not count).
  bool past_deadline() const { return !deadline_held_ && clock_.steady_now() >= deadline; }

 private:
  boost::asio::any_io_executor executor_;
  core::clock& clock_;
  bool deadline_held_ = false;
  core::steady_time held_since_{};
};

}  // namespace harness::agent
