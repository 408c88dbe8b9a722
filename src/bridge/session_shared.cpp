#include "session_shared.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "frames.hpp"
#include "harness/core/logging.hpp"

namespace harness::bridge {
namespace {

namespace asio = boost::asio;
using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

json error_json(const error& e) {
  json out{{"message", e.message}};
  if (!e.code.empty()) out["code"] = e.code;
  if (!e.hint.empty()) out["hint"] = e.hint;
  return out;
}

struct call_request {
  std::string op;
  std::string label;  // what the tool-call record shows
  std::string name;
  json args;
};

// Checks the frame's shape; the error says what was wrong.
result<call_request> read_call(const json& frame) {
  call_request call;
  call.op = frame.value("op", "");
  if (call.op == "list_tools") {
    call.label = "list_mcp_tools";
    auto args = frame.value("args", json::object());
    call.name = args.is_object() && args.contains("query") && args["query"].is_string() ? args["query"].get<std::string>()
                                                                                        : std::string();
    return call;
  }
  if (call.op != "tool_details" && call.op != "call_tool") {
    return make_error("bad_call", "unknown helper operation '" + call.op + "'");
  }
  if (!frame.contains("name") || !frame["name"].is_string() || frame["name"].get<std::string>().empty()) {
    return make_error("bad_call", "a tool name (string) is required");
  }
  call.name = frame["name"].get<std::string>();
  call.label = call.op == "tool_details" ? "get_mcp_tool_details" : call.name;
  call.args = frame.value("args", json::object());
  if (call.op == "call_tool" && !call.args.is_object()) {
    return make_error("bad_call", "tool arguments must be an object");
  }
  return call;
}

// A protocol violation on the call socket: the block fails like one on stdio.
void fail_session(session_shared& shared, std::string message) {
  shared.broken = true;
  shared.failure = {{"name", "ProtocolError"}, {"message", "the sandbox broke the protocol: " + std::move(message)}};
  shared.channel.cancel();  // wakes the block's reader, which reports the failure
  shared.calls_changed();
}

}  // namespace

asio::awaitable<status> line_writer::send(std::string line) {
  queue_.push_back(std::move(line));
  if (writing_) co_return last_write_;
  writing_ = true;
  while (!queue_.empty()) {
    std::string next = std::move(queue_.front());
    queue_.pop_front();
    last_write_ = co_await channel_->write_line(std::move(next));
    if (!last_write_) queue_.clear();
  }
  writing_ = false;
  co_return last_write_;
}

asio::awaitable<void> session_shared::wait_calls_idle(clock_type::time_point deadline,
                                                      std::size_t expected_socket_calls) {
  // One thread: nothing changes between the check and the wait.
  auto waiting = [&] {
    // After a protocol failure on the call socket, no more calls will come on it.
    bool more_to_come = socket_calls < expected_socket_calls && failure.is_null();
    return (outstanding > 0 || more_to_come) && clock_type::now() < deadline;
  };
  while (waiting()) {
    idle_timer.expires_at(deadline);
    co_await idle_timer.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

void session_shared::close_channels() {
  channel.cancel();
  if (call_listener) call_listener->cancel();
  if (call_channel) call_channel->cancel();
}

asio::awaitable<void> handle_call(std::shared_ptr<session_shared> shared, json frame, line_writer& replies) {
  auto started = clock_type::now();
  json id = frame.contains("id") ? frame["id"] : json();
  std::string exec = frame.value("exec", "");
  result<json> answer = make_error("bad_call", "unreachable");
  auto call = read_call(frame);
  if (!call) {
    answer = call.error();
  } else if (exec.empty() || exec != shared->current_exec) {
    // A timer or forgotten promise of a finished block: it cannot act any more.
    answer = make_error("stale_call", "this call comes from a block that has already finished");
  } else if (call->op == "list_tools") {
    answer = co_await shared->tools.list_tools(call->name);
  } else if (call->op == "tool_details") {
    answer = co_await shared->tools.tool_details(call->name);
  } else {
    answer = co_await shared->tools.call_tool(call->name, shared->filter.out_of_sandbox(std::move(call->args)));
  }
  if (shared->alive) {
    json reply{{"type", "reply"}, {"id", id}, {"ok", answer.has_value()}};
    if (answer) {
      reply["result"] = shared->filter.into_sandbox(std::move(*answer));
    } else {
      reply["error"] = error_json(answer.error());
    }
    if (call && exec == shared->current_exec) {
      shared->calls.push_back(
          {call->label, std::chrono::duration<double, std::milli>(clock_type::now() - started).count(), answer.has_value()});
    }
    auto sent = co_await replies.send(dump_frame(reply));
    if (!sent) shared->broken = true;
  }
  --shared->outstanding;
  shared->calls_changed();
}

asio::awaitable<void> serve_call_socket(std::shared_ptr<session_shared> shared, std::size_t max_line) {
  using namespace std::chrono_literals;
  // The runtime connects as soon as it reads `init`; past this it has fallen
  // back to stdio (an image without call-socket support), which still works.
  auto accepted = co_await shared->call_listener->accept(10s, max_line);
  if (!accepted) {
    if (accepted.error().code != "cancelled") {
      core::log_warn("sandbox call socket: {}; tool calls use stdio", accepted.error().describe());
    }
    co_return;
  }
  if (!shared->alive) co_return;
  shared->call_channel = std::move(*accepted);
  shared->call_writer = std::make_unique<line_writer>(shared->call_channel.get());
  for (;;) {
    auto line = co_await shared->call_channel->read_line();
    if (!shared->alive) co_return;
    if (!line) {
      // The runtime ended (the stdio side reports that) or the session was closed.
      if (line.error().code != "frame_too_large") co_return;
      fail_session(*shared, line.error().describe());
      co_return;
    }
    auto frame = parse_frame(*line);
    if (!frame || frame->value("type", "") != "call") {
      fail_session(*shared, frame ? "a frame of type '" + frame->value("type", "") + "' on the call socket"
                                  : frame.error().describe());
      co_return;
    }
    if (frame->value("exec", "") == shared->current_exec && !shared->current_exec.empty()) ++shared->socket_calls;
    ++shared->outstanding;  // before the spawn, so a waiter never sees the call in neither count
    shared->calls_changed();
    auto call = handle_call(shared, std::move(*frame), *shared->call_writer);
    asio::co_spawn(shared->executor, std::move(call), asio::detached);
  }
}

}  // namespace harness::bridge
