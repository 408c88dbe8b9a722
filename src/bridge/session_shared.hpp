// State of one runtime session that outlives any single coroutine: the
// channel, the serialised writer, and the `call` frames in flight. Call
// handlers hold it by shared_ptr, so a call that finishes after its block
// (or after the session) never touches freed memory.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <nlohmann/json.hpp>

#include "harness/bridge/call_socket.hpp"
#include "harness/bridge/frame_channel.hpp"
#include "harness/bridge/runtime_session.hpp"
#include "harness/bridge/tool_gateway.hpp"

namespace harness::bridge {

// Writes lines to one channel in order, one at a time, whoever queues them.
class line_writer {
 public:
  explicit line_writer(frame_channel* channel = nullptr) : channel_(channel) {}
  boost::asio::awaitable<status> send(std::string line);
  bool failed() const { return !last_write_; }

 private:
  frame_channel* channel_;
  std::deque<std::string> queue_;
  bool writing_ = false;
  status last_write_;
};

struct session_shared {
  session_shared(const boost::asio::any_io_executor& ex, frame_channel& c, tool_gateway& t, data_filter& f,
                 std::unique_ptr<call_socket> socket)
      : executor(ex), channel(c), tools(t), filter(f), call_listener(std::move(socket)), stdio_writer(&c), idle_timer(ex) {}

  boost::asio::any_io_executor executor;
  frame_channel& channel;  // the container's stdio
  tool_gateway& tools;
  data_filter& filter;
  bool alive = true;    // false once the session object is gone
  bool broken = false;  // a timeout or protocol failure: the sandbox must go
  bool deadline_hit = false;
  nlohmann::json failure;  // set by the call socket's reader when the runtime broke the protocol there
  std::string current_exec;
  std::vector<tool_call_record> calls;
  std::size_t outstanding = 0;  // calls being served; counted by whoever spawns handle_call

  // The call socket (see call_socket.hpp): the listener until the runtime
  // connects, then the connection and its writer.
  std::unique_ptr<call_socket> call_listener;
  std::unique_ptr<frame_channel> call_channel;
  std::unique_ptr<line_writer> call_writer;
  std::size_t socket_calls = 0;  // `call` frames of the current block read from the socket

  line_writer stdio_writer;  // to the container's stdio

  // Queues one line for the container's stdio.
  boost::asio::awaitable<status> send(std::string line) { return stdio_writer.send(std::move(line)); }

  // Returns once no call is in flight and `socket_calls` has reached
  // `expected_socket_calls`, or at `deadline`, whichever is first.
  boost::asio::awaitable<void> wait_calls_idle(std::chrono::steady_clock::time_point deadline,
                                               std::size_t expected_socket_calls = 0);
  // Wakes wait_calls_idle to look again (a call finished or arrived).
  void calls_changed() { idle_timer.cancel(); }

  // Cancels both channels, so nothing keeps a coroutine waiting on the runtime.
  void close_channels();

 private:
  boost::asio::steady_timer idle_timer;
};

// Serves one `call` frame: validates it, asks the tool gateway (arguments
// through filter.out_of_sandbox, results through filter.into_sandbox), and
// writes the `reply` with `replies` (the writer of the channel it came on).
boost::asio::awaitable<void> handle_call(std::shared_ptr<session_shared> shared, nlohmann::json frame,
                                         line_writer& replies);

// Serves the call socket for the session's lifetime: accepts the runtime's
// connection, then reads its `call` frames. A frame there that is not a call
// breaks the session (shared.failure) and wakes the block's reader.
boost::asio::awaitable<void> serve_call_socket(std::shared_ptr<session_shared> shared, std::size_t max_line);

}  // namespace harness::bridge
