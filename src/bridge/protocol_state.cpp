#include "protocol_state.hpp"

#include <algorithm>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "frames.hpp"
#include "harness/bridge/errors.hpp"
#include "harness/core/error_json.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/utf8.hpp"

namespace harness::bridge {
namespace {

namespace asio = boost::asio;
using json = nlohmann::json;
constexpr std::size_t batch_bytes = 256 * 1024;

struct call_request {
  std::string op;
  std::string label;  // what the tool-call record shows
  std::string name;
  json args;
};

// Checks the frame's shape; the error says what was wrong. The arguments are
// moved out of `frame`.
result<call_request> read_call(json& frame) {
  call_request call;
  call.op = string_field(frame, "op");
  auto args = frame.find("args");
  if (call.op == "list_tools") {
    call.label = "list_mcp_tools";
    call.name = args != frame.end() && args->is_object() ? string_field(*args, "query") : std::string();
    return call;
  }
  if (call.op == "read_resource") {
    // readMCPResource(link | server, uri): the server's name and the resource's uri.
    call.name = string_field(frame, "name");
    call.args = args != frame.end() ? std::move(*args) : json::object();
    if (call.name.empty() || !call.args.is_object() || !call.args.contains("uri") || !call.args["uri"].is_string() ||
        call.args["uri"].get<std::string>().empty()) {
      return make_error(bridge::errc::bad_call, "readMCPResource needs a resource_link, or a server name and a uri");
    }
    call.label = "readMCPResource";
    return call;
  }
  if (call.op != "tool_details" && call.op != "call_tool") {
    return make_error(bridge::errc::bad_call, "unknown helper operation '" + call.op + "'");
  }
  call.name = string_field(frame, "name");
  if (call.name.empty()) return make_error(bridge::errc::bad_call, "a tool name (string) is required");
  call.label = call.op == "tool_details" ? "get_mcp_tool_details" : call.name;
  call.args = args != frame.end() ? std::move(*args) : json::object();
  if (call.op == "call_tool" && !call.args.is_object()) {
    return make_error(bridge::errc::bad_call, "tool arguments must be an object");
  }
  return call;
}

// Keeps the arguments as the code wrote them (tokens, not the values they
// stand for) for the block's record, within the caps of runtime_session.hpp.
void record_args(protocol_state& shared, const json& args, tool_call_record& record) {
  std::string text = args.dump(-1, ' ', false, json::error_handler_t::replace);
  record.args_bytes = text.size();
  std::size_t room = recorded_args_budget - std::min(recorded_args_budget, shared.recorded_args_bytes);
  std::size_t keep = core::utf8_boundary(text, std::min(room, max_recorded_args_bytes));
  text.resize(keep);
  shared.recorded_args_bytes += keep;
  record.args_json = std::move(text);
}

}  // namespace

asio::awaitable<status> protocol_state::send(std::string line) {
  queue_.push_back(std::move(line));
  if (writing_) co_return last_write_;
  writing_ = true;
  while (!queue_.empty()) {
    // Lines queued while a write was in flight go out together (up to
    // batch_bytes): one write, and one wake-up of the runtime, for a burst of
    // replies to calls the code made at once.
    std::string next = std::move(queue_.front());
    queue_.pop_front();
    while (!queue_.empty() && next.size() + queue_.front().size() < batch_bytes) {
      next.push_back('\n');
      next += queue_.front();
      queue_.pop_front();
    }
    last_write_ = co_await channel.write_line(std::move(next));
    if (!last_write_) {
      queue_.clear();
      broken = true;
    }
  }
  writing_ = false;
  co_return last_write_;
}

asio::awaitable<void> protocol_state::wait_calls_idle() {
  // While a call waits for approval (a call the code did not await, still
  // waiting after its block's `done`) the expiry does not hold still: the
  // release wakes this to look again. A broken sandbox waits for nothing.
  while (deadline.running() && !broken) {
    const auto until = deadline.held() ? core::steady_time::max() : deadline.expiry();
    const bool idle = co_await outstanding.wait_change_until(until);
    if (idle) co_return;
    if (!deadline.held() && clock.steady_now() >= deadline.expiry()) co_return;
  }
}

void protocol_state::call_finished() {
  outstanding.done();
}

namespace {

// Holds the session's block deadline for one call while it waits for a
// person (an approval, or an upstream server's elicitation), as long as the
// block that made the call still runs (block ids are never reused within a
// session). Shared with the call's elicitation handler, which the MCP client
// may still run after the call has ended.
class call_pause final : public deadline_pause {
 public:
  explicit call_pause(std::shared_ptr<protocol_state> shared)
      : shared_(std::move(shared)), exec_(shared_->current_exec) {}
  ~call_pause() override { release_all(); }
  call_pause(const call_pause&) = delete;
  call_pause& operator=(const call_pause&) = delete;

  void hold() override {
    if (holds_++ == 0 && block_running()) {
      shared_->deadline.hold();
      if (span_) span_->add_event(waiting_for_ + ".wait");
    }
  }
  void release() override {
    if (holds_ == 0 || --holds_ > 0) return;
    if (!block_running()) return;
    shared_->deadline.release();
    if (span_) span_->add_event(waiting_for_ + ".resume");
  }
  // The call's span gets an event when a wait for `what` (an approval, an
  // elicitation) starts and ends; null: none (the span is gone).
  void mark_waits(telemetry::span* span, std::string what) {
    span_ = span;
    waiting_for_ = std::move(what);
  }
  bool block_running() const { return shared_->alive && !shared_->broken && shared_->current_exec == exec_; }

 private:
  void release_all() {
    if (holds_ > 0 && block_running()) shared_->deadline.release();
    holds_ = 0;
  }

  std::shared_ptr<protocol_state> shared_;
  std::string exec_;
  int holds_ = 0;
  telemetry::span* span_ = nullptr;
  std::string waiting_for_;
};

// Stops the pause's events once the call's span is gone (an elicitation
// callback may hold the pause longer than the call).
struct unmark_on_exit {
  std::shared_ptr<call_pause> pause;
  ~unmark_on_exit() { pause->mark_waits(nullptr, {}); }
};

// Asks the gateway for one validated call of the running block.
asio::awaitable<result<json>> serve(std::shared_ptr<protocol_state> self, call_request call, telemetry::span& span) {
  protocol_state& shared = *self;
  if (call.op == "list_tools" || call.op == "tool_details") {
    // A listing may start the user's instances of user-scoped servers: that
    // start is not the code's time, so the block's limit waits for it.
    auto pause = std::make_shared<call_pause>(self);
    pause->hold();
    result<json> listed = json();  // no co_await inside ?: (GCC 12)
    if (call.op == "list_tools") {
      listed = co_await shared.tools.list_tools(call.name);
    } else {
      listed = co_await shared.tools.tool_details(call.name);
    }
    pause->release();
    co_return listed;
  }
  if (shared.clock.steady_now() >= shared.call_deadline) {
    co_return make_error(bridge::errc::block_deadline,
                         "the block is about to reach its time limit; the call was not made",
                         "make fewer or faster calls per block, or raise SANDBOX_TIMEOUT_MS");
  }
  // Reading a resource is a call of the server's "resources/read" as far as
  // the tool policy goes: a rule for server__* covers it.
  const bool reading = call.op == "read_resource";
  const std::string server = call.name;
  if (reading) call.name = server + "__resources/read";
  // The tool policy first: a refused call never sees its arguments restored.
  auto pause = std::make_shared<call_pause>(self);
  unmark_on_exit unmark{pause};
  pause->mark_waits(&span, "approval");
  call_admission admission{call.name, call.args, shared.current_code, *pause};
  auto admitted = co_await shared.filter.admit_call(admission);
  pause->mark_waits(nullptr, {});  // the hold around prepare_call below comes on every call: no events
  if (!admitted) co_return admitted.error();
  if (!pause->block_running()) {
    co_return make_error(bridge::errc::stale_call, "the block ended while this call waited for approval");
  }
  // The user's own instance of the tool's server may have to start first;
  // the block's limit (and the calls' deadline) waits for that too.
  pause->hold();
  co_await shared.tools.prepare_call(call.name);
  pause->release();
  pause->mark_waits(&span, "elicitation");
  if (!pause->block_running()) co_return make_error(bridge::errc::stale_call, "the block ended before the call");
  auto args = shared.filter.out_of_sandbox(std::move(call.args), call.name);
  if (reading) {
    std::string uri = args.value("uri", "");  // named: a temporary in co_await is destroyed twice by GCC 12
    co_return co_await shared.tools.read_resource(server, std::move(uri), shared.call_deadline);
  }
  // The server's elicitations during the call go to whoever the filter can ask.
  elicit_fn elicit = [self, pause, tool = call.name](json params) -> asio::awaitable<std::optional<json>> {
    if (!self->alive) co_return std::nullopt;
    co_return co_await self->filter.elicit(std::move(params), tool, pause);
  };
  auto trace = span.parent();  // named: GCC 12 and temporaries in co_await
  auto answer = co_await shared.tools.call_tool(std::move(call.name), std::move(args), shared.call_deadline,
                                                std::move(elicit), std::move(trace));
  // A call that failed once the limit passed was cut short by it (the gateway ends calls by not_after).
  if (!answer && shared.clock.steady_now() >= shared.call_deadline) {
    answer.error().hint =
        "the call was cut short so that the block could end before its own limit "
        "(SANDBOX_TIMEOUT_MS); do less per block or raise it";
  }
  co_return answer;
}

// The GenAI conventions' execute_tool span of one call the code makes.
telemetry::span call_span(protocol_state& shared, const result<call_request>& call) {
  auto span = shared.block_trace.child("execute_tool");
  if (!span.recording()) return span;
  span.set("gen_ai.operation.name", "execute_tool");
  if (call) span.set("harness.call.op", call->op);
  if (call && span.capture_content()) {
    // Censored: code a caller sent to /execute may hold values in the clear.
    auto censored = shared.filter.into_sandbox(call->args);
    span.set("gen_ai.tool.call.arguments", censored.dump(-1, ' ', false, json::error_handler_t::replace));
  }
  return span;
}

// The tool's name is set only for a call that reached a tool: the name the
// code asked for may be anything, a value it read among them.
void end_call_span(telemetry::span& span, const std::string& label, const result<json>& answer, const json& reply,
                   std::size_t reply_bytes) {
  if (!span.recording()) return;
  span.set("harness.call.reply_bytes", reply_bytes);
  if (answer) {
    span.set("gen_ai.tool.name", label);
    span.rename("execute_tool " + label);
    if (auto result = reply.find("result"); result != reply.end() && span.capture_content()) {
      span.set("gen_ai.tool.call.result", result->dump(-1, ' ', false, json::error_handler_t::replace));  // censored
    }
  } else {
    span.fail(answer.error().code.wire_name());
  }
}

}  // namespace

asio::awaitable<void> handle_call(std::shared_ptr<protocol_state> shared, json frame) {
  struct finished_on_exit {
    protocol_state& s;
    ~finished_on_exit() { s.call_finished(); }
  } finished{*shared};
  auto started = shared->clock.steady_now();
  json id = frame.contains("id") ? frame["id"] : json();
  std::string exec = string_field(frame, "exec");
  result<json> answer = make_error(bridge::errc::bad_call, "unreachable");
  auto call = read_call(frame);
  std::string label = call ? call->label : std::string();
  tool_call_record record;
  // Only a call of the running block is its child; a stale one has no span.
  telemetry::span span;
  if (!exec.empty() && exec == shared->current_exec) span = call_span(*shared, call);
  if (shared->record_args && call && call->op == "call_tool" && !exec.empty() && exec == shared->current_exec) {
    record_args(*shared, call->args, record);
  }
  try {
    if (!call) {
      answer = call.error();
    } else if (exec.empty() || exec != shared->current_exec) {
      // A timer or forgotten promise of a finished block: it cannot act any more.
      answer = make_error(bridge::errc::stale_call, "this call comes from a block that has already finished");
    } else {
      answer = co_await serve(shared, std::move(*call), span);
    }
  } catch (const std::exception& e) {
    core::log_error("a sandbox call failed on the host: {}", e.what());
    answer = make_error(core::errc::internal_error, "the host failed while serving this call", "see the server log");
  }
  if (!shared->alive) co_return;
  json reply{{"type", "reply"}, {"id", id}, {"ok", answer.has_value()}};
  if (answer) {
    reply["result"] = shared->filter.into_sandbox(std::move(*answer));
  } else {
    // A tool's error text often echoes the arguments it was given, which were
    // restored to real values on the way out: it is censored like a result.
    reply["error"] = shared->filter.into_sandbox(error_json(answer.error()));
  }
  std::string line = dump_frame(reply);
  end_call_span(span, label, answer, reply, line.size());
  if (!label.empty() && exec == shared->current_exec) {
    record.name = std::move(label);
    record.ms = std::chrono::duration<double, std::milli>(shared->clock.steady_now() - started).count();
    record.ok = answer.has_value();
    record.reply_bytes = line.size();
    if (!answer) record.error_code = std::string(answer.error().code.wire_name());
    shared->calls.push_back(std::move(record));
  }
  co_await shared->send(std::move(line));
}

}  // namespace harness::bridge
