// The AgentManager: admits tasks (limits, queue), runs each one's loop
// (LLM -> execute_code -> sandbox -> observation -> LLM ... -> final answer),
// keeps their state and events, persists them through the store, and cancels
// them. One sandbox per task, claimed at its first code block and removed when
// the task ends. Everything sent to the LLM is censored with the task's (or
// conversation's) PII vault. Its results are structs; the HTTP layer writes
// them as JSON. Time (deadlines, waits, timestamps) comes from the injected
// core::clock. Single-threaded: call it on the executor it was created for.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/agent/agent_config.hpp"
#include "harness/agent/prompt.hpp"
#include "harness/bridge/tool_gateway.hpp"
#include "harness/core/clock.hpp"
#include "harness/core/error.hpp"
#include "harness/core/metrics.hpp"
#include "harness/execution/sandbox_files.hpp"
#include "harness/sandbox/language.hpp"
#include "harness/store/task_store.hpp"
#include "harness/telemetry/span.hpp"

namespace harness::execution {
class warm_pool;
class pii_filter_factory;
}  // namespace harness::execution
namespace harness::llm {
class llm_provider;
}
namespace harness::pii {
class pii_censor;
class vault_sealer;
}  // namespace harness::pii
namespace harness::agent {

struct task_request {
  std::string user_id;
  std::string task;
  std::optional<std::string> conversation_id;  // continue this conversation
  std::string mode = "sync";                   // recorded; the HTTP layer decides how to answer
  bool restore_pii = true;                     // de-tokenize the final answer for the caller
  std::string key_id;                          // the submitting API key's id, for the record; empty without one
  bool admin = false;                          // submitted with admin rights: the tool policy's "role": "admin"
  // The language the task's code is written in; none: AGENT_LANGUAGE.
  std::optional<sandbox::language> language;
  // Where the task's span hangs: the submitting request's span (empty: tracing off, no caller's trace).
  telemetry::span_parent trace;
};

using store::task_status;

struct task_ticket {
  std::string task_id;
  std::string conversation_id;
  task_status status = task_status::queued;  // queued or running
};

// A tool call of the task's code that waits for someone to decide it.
struct approval_view {
  std::string id;
  std::string tool;
  nlohmann::json arguments;  // as the code wrote them (tokenized)
  std::string code;          // the block that makes the call
  std::string reason;        // why the tool policy asks
  std::int64_t requested_ms = 0, expires_ms = 0;
};

// POST /tasks/{id}/approvals/{approvalId}.
struct approval_decision {
  bool approve = false;
  std::string reason;     // optional words for the code and the record
  bool for_task = false;  // "scope": "task": the same tool needs no approval for the rest of the task
  std::string key_id;     // who decided (empty on an open server)
};

// One task as the service shows it.
struct task_view {
  std::string task_id;
  std::string user_id;  // who owns it: the HTTP layer's ownership checks compare it
  std::string key_id;   // the id of the API key that submitted it; empty without one
  std::string conversation_id;
  std::string task;  // the caller's text as sent
  std::string mode;
  std::string language;  // of the task's code: "javascript" | "python"
  std::string trace_id;  // the OpenTelemetry trace the task ran in; empty when none
  task_status status = task_status::queued;
  nlohmann::json result;  // the final answer (string) or null
  nlohmann::json error;   // {"code","message","hint"?} or null
  int turns = 0;
  std::int64_t input_tokens = 0, output_tokens = 0;
  std::int64_t created_ms = 0, started_ms = 0, finished_ms = 0;  // unix epoch ms; 0 = not yet
  // The messages as the LLM saw them (tokenized), when asked for.
  std::optional<nlohmann::json> transcript;
  std::vector<approval_view> pending_approvals;  // while awaiting_approval
};

// What DELETE did: a queued task is cancelled at once; a running one is
// told to stop and ends as cancelled soon after.
enum class cancel_state { cancelled, cancelling };

struct cancel_outcome {
  std::string task_id;
  cancel_state state = cancel_state::cancelling;
};

// The events of one task in order: first those already recorded, then live
// ones as they happen.
class task_event_stream {
 public:
  virtual ~task_event_stream() = default;
  // The next event; an event with an empty type when nothing happened within
  // `wait` (a keep-alive); nullopt once the task has ended and every event was delivered.
  virtual boost::asio::awaitable<std::optional<store::event_record>> next(std::chrono::milliseconds wait) = 0;
};

struct agent_stats {
  std::size_t running = 0;
  std::size_t queued = 0;
};

// The task_not_found error for `task_id`. The HTTP layer answers a task the
// caller may not see with this same error, so ids cannot be probed.
error no_such_task(std::string_view task_id);

class agent_manager {
 public:
  virtual ~agent_manager() = default;

  // Admits a task and starts it (or queues it). Errors: agent_stopping,
  // conversation_busy (a task of it is still running), user_busy (the user's
  // limit), agent_busy (the queue is full), conversation_not_found (also for
  // another user's conversation), store_* (the database failed).
  virtual boost::asio::awaitable<result<task_ticket>> submit(task_request request) = 0;

  // Waits until the task has ended; its view without the transcript.
  virtual boost::asio::awaitable<result<task_view>> wait(std::string task_id) = 0;

  // The live task's state, or the stored one's. Error task_not_found.
  virtual boost::asio::awaitable<result<task_view>> view(std::string task_id, bool with_transcript) = 0;

  // Stored tasks newest first, without transcripts.
  virtual boost::asio::awaitable<result<std::vector<task_view>>> list(store::task_query query) = 0;

  // Cancels a queued or running task: stops its LLM call and kills its
  // sandbox. Errors: task_not_found, task_finished.
  virtual boost::asio::awaitable<result<cancel_outcome>> cancel(std::string task_id) = 0;

  // Decides a pending approval of a running task. Errors: task_not_found,
  // task_finished, approval_not_found, approval_decided (a second decision,
  // or one after the approval timed out).
  virtual boost::asio::awaitable<result<approval_view>> decide(std::string task_id, std::string approval_id,
                                                               approval_decision decision) = 0;

  // The task's events with seq > after_seq. Error task_not_found.
  virtual boost::asio::awaitable<result<std::shared_ptr<task_event_stream>>> events(std::string task_id,
                                                                                    std::int64_t after_seq) = 0;

  // Refuses new tasks, ends queued and running ones as interrupted and
  // waits for them up to `grace` (on the manager's clock).
  virtual boost::asio::awaitable<void> shutdown(std::chrono::milliseconds grace) = 0;

  virtual agent_stats stats() const = 0;
};

struct agent_dependencies {
  // Null when no LLM is configured: stored tasks are still served, and
  // submit() fails with errc::no_llm.
  std::shared_ptr<llm::llm_provider> llm;
  std::shared_ptr<execution::warm_pool> pool;
  std::shared_ptr<execution::warm_pool> python_pool;  // Python tasks; null: they are refused
  std::shared_ptr<bridge::tool_gateway> tools;
  std::shared_ptr<const pii::pii_censor> censor;
  std::shared_ptr<store::task_store> store;
  std::shared_ptr<execution::sandbox_files> files;  // null: no skills, no workspace
  // Where the blocking file work of `files` runs (a thread pool), never the I/O thread.
  boost::asio::any_io_executor blocking;
  // The server names for the prompt of a task of this user; may be empty.
  std::function<std::vector<std::string>(const std::string& user_id)> servers;
  std::function<void(task_status)> on_task_end;     // metrics hook; may be empty
  std::shared_ptr<core::metrics_registry> metrics;  // sandbox and PII counts; may be null
  // Seals conversation vaults at rest (pii/vault_seal.hpp); null: stored as plain JSON.
  std::shared_ptr<const pii::vault_sealer> sealer;
  // Makes each task's data filter over the task's vault (the censor, the
  // tool policy of its calls); the app's one factory, shared with the
  // execution service. Must not be null.
  std::shared_ptr<const execution::pii_filter_factory> filters;
};

// `clock` must outlive the manager. Tasks a previous process left queued or
// running are not its business: the start-up marks them interrupted in the
// store (blocking_task_store::mark_interrupted) before the manager is created.
std::shared_ptr<agent_manager> create_agent_manager(const boost::asio::any_io_executor& executor,
                                                    agent_dependencies deps, agent_config config, core::clock& clock);

}  // namespace harness::agent
