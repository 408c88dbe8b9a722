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
#include "harness/core/pausable_deadline.hpp"
#include "harness/execution/data_path.hpp"
#include "harness/execution/sandbox_session.hpp"
#include "harness/llm/types.hpp"
#include "harness/pii/pii_vault.hpp"
#include "harness/sandbox/language.hpp"
#include "harness/store/task_store.hpp"
#include "harness/telemetry/span.hpp"
#include "llm_transcript.hpp"
#include "task_events.hpp"

namespace harness::agent {

// Why a task must stop before its loop ends on its own. Not a task_status:
// it is a request, which the loop turns into the status it ends with.
enum class stop_reason { none, cancelled, timed_out, interrupted };

struct live_task : std::enable_shared_from_this<live_task> {
  live_task(const boost::asio::any_io_executor& executor, core::clock& clock, std::string id, task_events::sink persist)
      : events(executor, clock, std::move(id), std::move(persist)), deadline_(executor, clock) {}

  store::task_record record;
  bool restore_pii = true;
  sandbox::language language = sandbox::language::javascript;  // of the task's code
  std::int64_t conversation_created_ms = 0;

  std::shared_ptr<pii::pii_vault> vault;
  // What the LLM is sent: the system prompt and the conversation so far,
  // ending with this task's messages. Set when the task is admitted.
  std::optional<llm_transcript> transcript;
  std::shared_ptr<execution::pii_filter> filter;
  // The tool calls waiting for a person (the filter's approver).
  std::shared_ptr<approval_desk> approvals;

  task_events events;
  // The task's span, from admission to its end; turns, LLM calls and blocks hang below it.
  telemetry::span span;
  std::unique_ptr<execution::sandbox_session> sandbox;
  bool sandbox_lost = false;  // a sandbox of this task was stopped: the next one gets a note
  std::string sandbox_loss;   // why, for that note

  // none while it may go on.
  agent::stop_reason stop = stop_reason::none;
  boost::asio::cancellation_signal llm_cancel;  // aborts the LLM call in flight
  bool llm_in_flight = false;
  core::steady_time started;
  bool finished = false;
  bool ending = false;  // finish() has begun

  // Stops what is in flight: the LLM call, the approvals awaited and the
  // sandbox's block. The first reason wins.
  void request_stop(stop_reason reason);

  // The wall-clock limit: at `at` the task is stopped (timed_out), unless it is ending by then.
  void start_deadline(core::steady_time at);
  void stop_deadline() { deadline_.stop(); }
  core::steady_time deadline() const { return deadline_.expiry(); }
  // While a call waits for approval the limit stands still: the release
  // moves it on by the time held.
  void hold_deadline() { deadline_.hold(); }
  void release_deadline() { deadline_.release(); }

 private:
  core::pausable_deadline deadline_;
};

}  // namespace harness::agent
