// The protocol state of one runtime session, the part that outlives any
// single coroutine: the channel, the serialised writer, the running block and
// the `call` frames in flight. Call
// handlers hold it by shared_ptr, so a call that finishes after its block
// (or after the session) never touches freed memory.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/bridge/frame_channel.hpp"
#include "harness/bridge/runtime_session.hpp"
#include "harness/bridge/tool_gateway.hpp"
#include "harness/core/async_signal.hpp"
#include "harness/core/pausable_deadline.hpp"
#include "harness/telemetry/span.hpp"

namespace harness::bridge {

struct protocol_state {
  protocol_state(const boost::asio::any_io_executor& executor, core::clock& clk, frame_channel& c, tool_gateway& t,
                 data_filter& f)
      : clock(clk), channel(c), tools(t), filter(f), deadline(executor, clk), outstanding(executor, clk) {}

  core::clock& clock;
  frame_channel& channel;
  tool_gateway& tools;
  data_filter& filter;
  bool alive = true;    // false once the session object is gone
  bool broken = false;  // a timeout or protocol failure: the sandbox must go
  bool deadline_hit = false;
  std::string current_exec;            // the block running now; empty between blocks
  std::string current_code;            // its code (an approval request shows it)
  telemetry::span_parent block_trace;  // its span: each call's span hangs below it
  core::pausable_deadline deadline;    // the running block's; a call awaiting approval holds it
  // When the running block's tool calls must have ended (its deadline less a margin).
  core::steady_time call_deadline;
  std::vector<tool_call_record> calls;
  bool record_args = false;             // session_limits::record_call_args
  std::size_t recorded_args_bytes = 0;  // of `calls`' args_json, against recorded_args_budget
  // Calls being served. Counted (add()) by whoever spawns handle_call, before
  // the spawn: co_spawn only posts the start, and a `done` read in between
  // must still see the call. handle_call ends it with call_finished().
  core::async_counter outstanding;

  // Queues one line and writes queued lines in order; lines that queued up
  // while a write was in flight go out together.
  boost::asio::awaitable<status> send(std::string line);

  // Returns when no call is in flight or at the block's deadline, whichever is first.
  boost::asio::awaitable<void> wait_calls_idle();
  void call_finished();

 private:
  std::deque<std::string> queue_;
  bool writing_ = false;
  status last_write_;
};

// Serves one `call` frame: validates it, asks the tool gateway (arguments
// through filter.out_of_sandbox, results through filter.into_sandbox), and
// writes the `reply`. Never throws; always calls call_finished().
boost::asio::awaitable<void> handle_call(std::shared_ptr<protocol_state> shared, nlohmann::json frame);

}  // namespace harness::bridge
