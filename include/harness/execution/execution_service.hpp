// Runs code for POST /execute: without an LLM, for callers who bring their own.
// A call without a sessionId runs in a fresh sandbox that is destroyed right
// after; a call with a sessionId creates that session or reuses it (same
// sandbox, same REPL state) until it idles out or is deleted.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "harness/bridge/runtime_session.hpp"
#include "harness/bridge/tool_gateway.hpp"
#include "harness/core/clock.hpp"
#include "harness/core/metrics.hpp"
#include "harness/execution/pii_filter_factory.hpp"
#include "harness/execution/sandbox_session.hpp"
#include "harness/execution/warm_pool.hpp"
#include "harness/policy/approver.hpp"
#include "harness/store/session_directory.hpp"
#include "harness/telemetry/span.hpp"

namespace harness::execution {

struct execution_config {
  std::chrono::milliseconds exec_timeout{30'000};   // one block (SANDBOX_TIMEOUT_MS)
  std::chrono::milliseconds idle_timeout{300'000};  // a session unused this long is ended
  std::size_t max_sessions = 16;                    // live sessions at once
  std::size_t max_sessions_per_user = 4;            // of one user, so one user cannot take them all
  // One-shot blocks (no sessionId) running at once per user and per API key,
  // and how long a request past that waits for one to end (then 429).
  std::size_t max_running_per_user = 4;            // SANDBOX_MAX_RUNNING_PER_USER
  std::size_t max_running_per_key = 8;             // SANDBOX_MAX_RUNNING_PER_KEY
  std::chrono::milliseconds run_queue_wait{2000};  // SANDBOX_RUN_QUEUE_MS
  bridge::session_limits limits{};
  // The user's skills go into every sandbox and what a block saves under
  // /skills is written back, as for a task; /workspace lives as long as the
  // sandbox. Null: no files. `blocking` is where that file work runs.
  std::shared_ptr<sandbox_files> files{};
  boost::asio::any_io_executor blocking{};
  // Where harness_sandbox_execs_total{outcome} and
  // harness_sandbox_exec_duration_seconds are counted; null: not counted.
  std::shared_ptr<core::metrics_registry> metrics{};
  // With replicas sharing a store: where each named session lives. Null: this
  // server is the only one.
  std::shared_ptr<store::session_directory> directory{};
};

// The warm pool of each language the service runs.
struct language_pools {
  language_pools(std::shared_ptr<warm_pool> js, std::shared_ptr<warm_pool> py = nullptr)  // NOLINT: implicit
      : javascript(std::move(js)), python(std::move(py)) {}
  std::shared_ptr<warm_pool> javascript;
  std::shared_ptr<warm_pool> python;  // null: Python code is refused (unsupported_language)
  warm_pool* find(sandbox::language lang) const {
    return (lang == sandbox::language::python ? python : javascript).get();
  }
};

// Lets the caller stop a block that has no session to end (a one-shot one;
// a session's block stops when its session ends): request() kills the
// block's sandbox, now or as soon as it has one, so the block answers with a
// SandboxError. Used on the service's executor.
class block_stop {
 public:
  void request() {
    requested_ = true;
    if (kill_) kill_();
  }
  bool requested() const { return requested_; }
  // The execution service's side: how to kill the block while it runs (empty: not running).
  void arm(std::function<void()> kill) {
    kill_ = std::move(kill);
    if (requested_ && kill_) kill_();
  }
  void disarm() { kill_ = nullptr; }

 private:
  bool requested_ = false;
  std::function<void()> kill_;
};

struct execute_request {
  std::string user_id;
  std::string key_id;  // the caller's API key id; empty for the open caller
  // Admin rights (an admin key, the open caller, the operator's stdio face):
  // the role the tool policy's rules see, for a session this request opens.
  bool admin = false;
  std::string code;
  // The block's language; a session keeps the one of its first block.
  sandbox::language language = sandbox::language::javascript;
  std::optional<std::string> session_id;
  // Who decides the calls the tool policy asks about, for a session this
  // request opens (the MCP face's client); null: such calls are refused.
  std::shared_ptr<policy::approver> approver{};
  // Stops the block on request (null: only ending its session does).
  std::shared_ptr<block_stop> stop{};
  // The span the block's span hangs below (the HTTP request's, the MCP
  // call's); empty: not traced.
  telemetry::span_parent trace{};
};

// What one /execute block gave: the block's own outcome and where it ran.
// The HTTP route and the MCP face each write it in their own shape.
struct execute_outcome {
  // Result, logs, error, tool calls, changed files and their write-back
  // report. A block that failed, timed out or broke its sandbox is still an
  // outcome (ok false, with an error).
  bridge::exec_result block{};
  std::optional<std::string> session_id{};  // the request's sessionId; none for a one-shot block
  sandbox::language language = sandbox::language::javascript;
  bool warm = false;  // the sandbox came from the warm pool
  // The sandbox is gone after this block (a one-shot block, or one that timed
  // out or broke it): the session's next block starts a fresh one.
  bool ended = false;
  bool opened = false;    // this request started the session's sandbox, so no earlier state is in it
  std::string channel{};  // what the protocol ran on: "socket" or "stdio"
  // Where the request's time went: all of it, and opening the sandbox (the
  // user's files read, the claim, `init` sent; 0 when the session had one).
  // The block's own times are block.ms and block.runtime_ms.
  double total_ms = 0;
  double open_ms = 0;
};

class execution_service {
 public:
  virtual ~execution_service() = default;

  // Runs one block. A session id names a session of that user only: another
  // user's request with the same id opens its own. A session runs one
  // language: a block in another is language_mismatch; unsupported_language
  // when there is no pool for the request's language. A session is the
  // session's from the moment its first request passed the limits: while its
  // sandbox starts it is running that request's block. Errors: session_busy
  // (the session is running another block), too_many_sessions (sessions still
  // starting count), and the pool's errors when no sandbox could be started.
  virtual boost::asio::awaitable<result<execute_outcome>> execute(execute_request request) = 0;

  // Ends a session and destroys its sandbox. A session running a block can
  // be ended too: its sandbox is killed, so the block's request answers at
  // once with a SandboxError. Errors: session_not_found (also for another user's session).
  virtual boost::asio::awaitable<status> end_session(std::string user_id, std::string session_id) = 0;

  // Ends every session (server shutdown).
  virtual boost::asio::awaitable<void> shutdown() = 0;

  // Live sessions, those still starting included.
  virtual std::size_t session_count() const = 0;
};

// Each session's data filter comes from `filters`, over a vault of the
// session's own (tokens never leak between sessions) and with the request's
// approver; null `filters`: data passes unfiltered (tests). Idle time,
// durations and the removal of sandboxes run on `clock`, which must outlive
// the service.
std::shared_ptr<execution_service> create_execution_service(const boost::asio::any_io_executor& executor,
                                                            language_pools pools,
                                                            std::shared_ptr<bridge::tool_gateway> tools,
                                                            std::shared_ptr<const pii_filter_factory> filters,
                                                            execution_config config, core::clock& clock);

}  // namespace harness::execution
