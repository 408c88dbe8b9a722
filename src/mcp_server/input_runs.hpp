// Multi round-trip requests (MCP 2026-07-28, basic/patterns/mrtr): a
// tools/call of the new era that needs its client's input on the way (an
// approval the tool policy asks for, an upstream server's elicitation). The
// era has no server-to-client requests, so the elicitation/create the
// session would send is kept instead; the call answers
// `resultType: "input_required"` with those requests as `inputRequests` and a
// `requestState` naming the run, while the block waits. The client's retry
// (a new tools/call with `inputResponses` and the same `requestState`) hands
// the answers to the waiting requests, and waits for the answer or the next
// input. A run belongs to the user and key that started it: to anyone else
// its requestState is unknown.
//
// A run may also become a task (the io.modelcontextprotocol/tasks extension,
// for a client that declares it): when the call has neither answered nor
// asked for input within `task_after`, it answers `resultType: "task"` with a
// task id instead, and the block goes on. tasks/get then reports the run
// (working, input_required with its inputRequests, completed with the
// CallToolResult, failed with the JSON-RPC error, cancelled), tasks/update
// hands input responses on, tasks/cancel stops the block. A task is kept
// `keep` after its block ended or its client last asked, whichever is later.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "harness/mcp_server/mcp_face.hpp"

namespace harness::mcp_server {

class input_runs {
 public:
  // What to do once a run ended and its answer was taken (or dropped).
  using finish_fn = std::function<boost::asio::awaitable<void>()>;

  // A finished run whose answer nobody collected, or a paused one nobody
  // answered, is dropped `keep` after it was last touched (sweep()).
  // `replica`: this replica's name, ending every requestState (empty: none).
  // `task_after`: how long a call that may become a task runs before it does.
  input_runs(const boost::asio::any_io_executor& executor, core::clock& clock, std::chrono::milliseconds keep,
             std::chrono::milliseconds task_after, std::string replica);

  // Runs `message` (a tools/call) on `session` and answers with its result,
  // or with input_required when the session asks for input first, or (when
  // `may_task`) with a task once it ran `task_after` without either. When
  // `abandoned` (may be null) fires before that answer, the block is stopped.
  boost::asio::awaitable<nlohmann::json> start(std::shared_ptr<mcp_session> session, nlohmann::json message,
                                               mcp_caller caller, finish_fn finish, bool may_task,
                                               std::shared_ptr<core::abandonment> abandoned);

  // A retry: `message` carries params.requestState and params.inputResponses.
  // Hands the responses on and answers as start() does; an unknown state
  // (or another caller's) gets an invalid-params error, one of another
  // replica an error whose data names it.
  boost::asio::awaitable<nlohmann::json> resume(nlohmann::json message, const mcp_caller& caller, bool may_task,
                                                std::shared_ptr<core::abandonment> abandoned);

  // tasks/get, tasks/update and tasks/cancel (params.taskId): the answer to
  // `message`. A task of another caller is as unknown as a made-up id.
  boost::asio::awaitable<nlohmann::json> task_request(nlohmann::json message, const mcp_caller& caller);

  // notifications/cancelled over stdio: stops the block of the call whose
  // request `request_id` of `caller` waits (the first or a retry). Unknown
  // ids, and calls that became tasks (tasks/cancel stops those), are ignored.
  boost::asio::awaitable<void> cancel(nlohmann::json request_id, const mcp_caller& caller);

  // Drops runs untouched for longer than `keep`.
  void sweep();
  // Ends every run (server shutdown).
  boost::asio::awaitable<void> shutdown();
  std::size_t size() const { return runs_.size(); }

 private:
  struct run;
  boost::asio::awaitable<nlohmann::json> next(std::shared_ptr<run> r, nlohmann::json id, bool may_task,
                                              std::shared_ptr<core::abandonment> abandoned);
  boost::asio::awaitable<void> drive(std::shared_ptr<run> r, nlohmann::json message);
  boost::asio::awaitable<void> drop(std::string token);
  boost::asio::awaitable<void> drop_if_stale(std::string token);
  // The run `token` names when it is `caller`'s and of the kind asked for;
  // else the error answer (naming the replica that holds it, if another).
  std::variant<std::shared_ptr<run>, nlohmann::json> find(const nlohmann::json& id, const std::string& token,
                                                          const mcp_caller& caller, bool task) const;
  // Hands the client's inputResponses to the session's waiting requests.
  boost::asio::awaitable<void> deliver(const std::shared_ptr<run>& r, const nlohmann::json& params);
  // Moves what the session asked into the requests put to the client.
  static void put_to_client(run& r);
  nlohmann::json become_task(run& r, const nlohmann::json& id);
  // Asks the session to stop the run's block (once).
  static boost::asio::awaitable<void> stop_block(std::shared_ptr<run> r, core::system_time now);
  nlohmann::json task_fields(const run& r) const;

  boost::asio::any_io_executor executor_;
  core::clock& clock_;
  std::chrono::milliseconds keep_;
  std::chrono::milliseconds task_after_;
  std::string replica_;
  std::map<std::string, std::shared_ptr<run>> runs_;  // by requestState
};

}  // namespace harness::mcp_server
