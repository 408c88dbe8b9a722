// The AgentManager: admits tasks (limits, queue), runs each one's loop
// (LLM -> execute_code -> sandbox -> observation -> LLM ... -> final answer),
// keeps their state and events, persists them through the store, and cancels
// them. One sandbox per task, claimed at its first code block and removed when
// the task ends. Everything sent to the LLM is censored with the task's (or
// conversation's) PII vault.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/agent/agent_config.hpp"
#include "harness/agent/prompt.hpp"
#include "harness/bridge/tool_gateway.hpp"
#include "harness/core/error.hpp"
#include "harness/core/metrics.hpp"
#include "harness/execution/sandbox_files.hpp"
#include "harness/store/task_store.hpp"

namespace harness::execution {
class warm_pool;
}
namespace harness::llm {
class llm_provider;
}
namespace harness::pii {
class pii_censor;
}

namespace harness::agent {

struct task_request {
  std::string user_id;
  std::string task;
  std::optional<std::string> conversation_id;  // continue this conversation
  std::string mode = "sync";                   // recorded; the HTTP layer decides how to answer
  bool restore_pii = true;                     // de-tokenize the final answer for the caller
};

struct task_ticket {
  std::string task_id;
  std::string conversation_id;
  std::string status;  // "queued" or "running"
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

class agent_manager {
 public:
  virtual ~agent_manager() = default;

  // Admits a task and starts it (or queues it). Errors: agent_busy (the queue
  // is full), user_busy (the user's limit), conversation_not_found,
  // conversation_forbidden (another user's), conversation_busy (a task of it
  // is still running), agent_stopping, store_* (the database failed).
  virtual result<task_ticket> submit(task_request request) = 0;

  // Waits until the task has ended; its view (see view()).
  virtual boost::asio::awaitable<result<nlohmann::json>> wait(std::string task_id) = 0;

  // {"taskId","userId","conversationId","status","task","mode","result","error"?,"turns",
  //  "usage":{"inputTokens","outputTokens"},"durationMs","createdAt","startedAt","finishedAt",
  //  "transcript"? (the messages as the LLM saw them: tokenized)}. Error task_not_found.
  virtual result<nlohmann::json> view(const std::string& task_id, bool with_transcript) = 0;

  // {"tasks": [view without transcript...]} newest first.
  virtual result<nlohmann::json> list(const store::task_query& query) = 0;

  // Cancels a queued or running task: stops its LLM call and kills its
  // sandbox. Errors: task_not_found, task_finished.
  virtual result<nlohmann::json> cancel(const std::string& task_id) = 0;

  // The task's events with seq > after_seq. Error task_not_found.
  virtual result<std::shared_ptr<task_event_stream>> events(const std::string& task_id, std::int64_t after_seq) = 0;

  // Refuses new tasks, ends queued and running ones as "interrupted" and
  // waits for them up to `grace`.
  virtual boost::asio::awaitable<void> shutdown(std::chrono::milliseconds grace) = 0;

  virtual agent_stats stats() const = 0;
};

struct agent_dependencies {
  std::shared_ptr<llm::llm_provider> llm;
  std::shared_ptr<execution::warm_pool> pool;
  std::shared_ptr<bridge::tool_gateway> tools;
  std::shared_ptr<const pii::pii_censor> censor;
  std::shared_ptr<store::task_store> store;
  std::shared_ptr<execution::sandbox_files> files;  // null: no skills, no workspace
  // Where the blocking file work of `files` runs (a thread pool), never the I/O thread.
  boost::asio::any_io_executor blocking;
  std::function<std::vector<server_brief>()> servers;          // for the prompt; may be empty
  std::function<void(const std::string& status)> on_task_end;  // metrics hook; may be empty
  std::shared_ptr<core::metrics_registry> metrics;             // sandbox and PII counts; may be null
};

// Marks tasks left "running" by a previous process as "interrupted".
std::shared_ptr<agent_manager> create_agent_manager(const boost::asio::any_io_executor& executor,
                                                    agent_dependencies deps, agent_config config);

}  // namespace harness::agent
