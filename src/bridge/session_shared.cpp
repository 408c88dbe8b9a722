#include "session_shared.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "frames.hpp"

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

}  // namespace

asio::awaitable<status> session_shared::send(std::string line) {
  queue_.push_back(std::move(line));
  if (writing_) co_return last_write_;
  writing_ = true;
  while (!queue_.empty()) {
    std::string next = std::move(queue_.front());
    queue_.pop_front();
    last_write_ = co_await channel.write_line(std::move(next));
    if (!last_write_) {
      queue_.clear();
      broken = true;
    }
  }
  writing_ = false;
  co_return last_write_;
}

asio::awaitable<void> session_shared::wait_calls_idle(clock_type::time_point deadline) {
  if (outstanding == 0) co_return;
  idle_timer.expires_at(deadline);
  co_await idle_timer.async_wait(asio::as_tuple(asio::use_awaitable));
}

void session_shared::call_finished() {
  if (--outstanding == 0) idle_timer.cancel();
}

asio::awaitable<void> handle_call(std::shared_ptr<session_shared> shared, json frame) {
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
    co_await shared->send(dump_frame(reply));
  }
  shared->call_finished();
}

}  // namespace harness::bridge
