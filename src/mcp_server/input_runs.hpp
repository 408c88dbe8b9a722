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
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "harness/mcp_server/mcp_face.hpp"

namespace harness::mcp_server {

class input_runs {
 public:
  // What to do once a run ended and its answer was taken (or dropped).
  using finish_fn = std::function<boost::asio::awaitable<void>()>;

  // A finished run whose answer nobody collected, or a paused one nobody
  // answered, is dropped `keep` after it was last touched (sweep()).
  // `replica`: this replica's name, ending every requestState (empty: none).
  input_runs(const boost::asio::any_io_executor& executor, core::clock& clock, std::chrono::milliseconds keep,
             std::string replica);

  // Runs `message` (a tools/call) on `session` and answers with its result,
  // or with input_required when the session asks for input first.
  boost::asio::awaitable<nlohmann::json> start(std::shared_ptr<mcp_session> session, nlohmann::json message,
                                               mcp_caller caller, finish_fn finish);

  // A retry: `message` carries params.requestState and params.inputResponses.
  // Hands the responses on and answers as start() does; an unknown state
  // (or another caller's) gets an invalid-params error, one of another
  // replica an error whose data names it.
  boost::asio::awaitable<nlohmann::json> resume(nlohmann::json message, const mcp_caller& caller);

  // Drops runs untouched for longer than `keep`.
  void sweep();
  // Ends every run (server shutdown).
  boost::asio::awaitable<void> shutdown();
  std::size_t size() const { return runs_.size(); }

 private:
  struct run;
  boost::asio::awaitable<nlohmann::json> next(std::shared_ptr<run> r, nlohmann::json id);
  static boost::asio::awaitable<void> drive(std::shared_ptr<run> r, nlohmann::json message);
  boost::asio::awaitable<void> drop(std::string token);

  boost::asio::any_io_executor executor_;
  core::clock& clock_;
  std::chrono::milliseconds keep_;
  std::string replica_;
  std::map<std::string, std::shared_ptr<run>> runs_;  // by requestState
};

}  // namespace harness::mcp_server
