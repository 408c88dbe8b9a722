#include "harness/bridge/runtime_session.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>

#include "frames.hpp"
#include "harness/bridge/errors.hpp"
#include "harness/core/base64.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/core/with_deadline.hpp"
#include "protocol_state.hpp"

namespace harness::bridge {
namespace {

namespace asio = boost::asio;
using json = nlohmann::json;

json failure(std::string_view name, std::string message) {
  return {{"name", name}, {"message", std::move(message)}};
}

json files_json(const std::vector<init_file>& files) {
  json list = json::array();
  for (const auto& f : files) {
    list.push_back(
        {{"root", f.root}, {"path", f.path}, {"content", core::base64_encode(f.content)}, {"encoding", "base64"}});
  }
  return list;
}

// How long before the block's deadline its tool calls must end: the code
// needs a moment to see the failed call and finish on its own.
std::chrono::milliseconds call_margin(std::chrono::milliseconds block_timeout) {
  return std::min<std::chrono::milliseconds>(std::chrono::seconds(1), block_timeout / 10);
}

// Marks the block as running for the calls it makes, and as over on every
// way out (an exception included), so no call is ever taken for a block
// that has ended.
class block_scope {
 public:
  block_scope(protocol_state& shared, std::string id, std::string code, core::steady_time call_deadline)
      : shared_(shared) {
    shared_.current_exec = std::move(id);
    shared_.current_code = std::move(code);
    shared_.call_deadline = call_deadline;
    shared_.calls.clear();
    shared_.recorded_args_bytes = 0;
  }
  ~block_scope() {
    shared_.current_exec.clear();
    shared_.current_code.clear();
    shared_.block_trace = {};
    shared_.deadline.stop();
    // A call still waiting for a person (the sandbox broke, or the block was
    // given up) is not made any more: its approval ends now.
    if (shared_.alive) shared_.filter.block_ended();
  }
  block_scope(const block_scope&) = delete;
  block_scope& operator=(const block_scope&) = delete;

 private:
  protocol_state& shared_;
};

class runtime_session_impl final : public runtime_session {
 public:
  runtime_session_impl(const asio::any_io_executor& executor, core::clock& clock, frame_channel& channel,
                       tool_gateway& tools, data_filter& filter, session_limits limits)
      : executor_(executor),
        clock_(clock),
        channel_(channel),
        limits_(limits),
        shared_(std::make_shared<protocol_state>(executor, clock, channel, tools, filter)) {
    shared_->record_args = limits.record_call_args;
  }

  ~runtime_session_impl() override { shared_->alive = false; }

  asio::awaitable<status> wait_ready(std::chrono::milliseconds timeout) override {
    auto ready = co_await wait_for_ready(clock_, channel_, timeout);
    if (!ready) shared_->broken = true;
    co_return ready;
  }

  asio::awaitable<status> init(std::string session_id, std::vector<init_file> files) override {
    json limits{
        {"logBytes", limits_.log_bytes}, {"maxFileBytes", limits_.max_file_bytes}, {"maxFiles", limits_.max_files}};
    json frame{{"type", "init"}, {"session", session_id}, {"limits", limits}, {"files", files_json(files)}};
    co_return co_await shared_->send(dump_frame(frame));
  }

  asio::awaitable<exec_result> exec(std::string code, std::chrono::milliseconds timeout,
                                    telemetry::span_parent trace) override {
    std::string id = "x" + std::to_string(++block_seq_);
    json frame{{"type", "exec"}, {"id", id}, {"code", code}};
    shared_->block_trace = std::move(trace);
    co_return co_await run_block(std::move(frame), std::move(id), timeout, std::move(code));
  }

  asio::awaitable<status> put(std::vector<init_file> files, std::chrono::milliseconds timeout) override {
    std::string id = "p" + std::to_string(++block_seq_);
    json frame{{"type", "put"}, {"id", id}, {"files", files_json(files)}};
    auto outcome = co_await run_block(std::move(frame), std::move(id), timeout);
    if (outcome.ok) co_return status{};
    co_return make_error(shared_->broken ? bridge::errc::sandbox_failed : bridge::errc::sandbox_put_failed,
                         "the sandbox did not take the files: " + string_field(outcome.error, "message"));
  }

  bool broken() const override { return shared_->broken; }

 private:
  // Sends one frame that the runtime answers with `done` (an exec or a put),
  // serves the calls made meanwhile, and collects the block's output.
  asio::awaitable<exec_result> run_block(json frame, std::string id, std::chrono::milliseconds timeout,
                                         std::string code = {}) {
    auto started = clock_.steady_now();
    exec_result result;
    if (shared_->broken) {
      fail(result, failure_kind::sandbox,
           "this sandbox can no longer run code (an earlier block broke it); start a new session");
      co_return result;
    }
    shared_->deadline_hit = false;
    {
      // At the deadline the channel is cancelled, so the pending read ends;
      // the sandbox is given up (the code may still be running in it). A call
      // waiting for approval holds the deadline; its release moves the
      // calls' own limit on with it.
      auto on_expiry = [shared = shared_] {
        if (!shared->alive) return;
        shared->deadline_hit = true;
        shared->broken = true;
        shared->channel.cancel();
      };
      auto on_shift = [shared = shared_](core::steady_time::duration by) {
        shared->call_deadline += by;
        shared->outstanding.wake();  // wait_calls_idle looks at the new expiry
      };
      const auto expiry = clock_.steady_now() + timeout;
      block_scope scope(*shared_, id, std::move(code), expiry - call_margin(timeout));
      shared_->deadline.start(expiry, on_expiry, on_shift);
      co_await settle_block(std::move(frame), id, timeout, result);
    }
    result.tool_calls = std::move(shared_->calls);
    result.ms = std::chrono::duration<double, std::milli>(clock_.steady_now() - started).count();
    co_return result;
  }

  // Reads the block to its end, then waits for the calls it started.
  asio::awaitable<void> settle_block(json frame, std::string id, std::chrono::milliseconds timeout,
                                     exec_result& result) {
    try {
      co_await read_block(std::move(frame), id, timeout, result);
    } catch (const std::exception& e) {
      // Nothing a frame holds may throw here (the readers above do not), but
      // should it, the sandbox is given up rather than half-handled.
      core::log_warn("sandbox block {} failed on the host: {}", id, e.what());
      shared_->broken = true;
      fail(result, failure_kind::protocol, std::string("the host could not handle the sandbox's output: ") + e.what());
    }
    // Calls the block started but did not await still need the channel: they
    // get until the deadline, then fail on their own.
    co_await shared_->wait_calls_idle();
  }

  asio::awaitable<void> read_block(json frame, const std::string& id, std::chrono::milliseconds timeout,
                                   exec_result& result) {
    auto sent = co_await shared_->send(dump_frame(frame));
    if (!sent) {
      channel_failure(result, sent.error(), timeout);
      co_return;
    }
    std::size_t log_bytes = 0;
    bool logs_cut = false;
    for (;;) {
      auto line = co_await channel_.read_line();
      if (!line) {
        channel_failure(result, line.error(), timeout);
        co_return;
      }
      auto parsed = parse_frame(*line);
      if (!parsed) {
        shared_->broken = true;
        fail(result, failure_kind::protocol, parsed.error().describe());
        co_return;
      }
      const std::string type = string_field(*parsed, "type");
      const bool ours = string_field(*parsed, "exec") == id;
      if (type == "call") {
        shared_->outstanding.add();  // before the spawn: see protocol_state::outstanding
        auto call = handle_call(shared_, std::move(*parsed));
        core::spawn_logged(executor_, std::move(call), "sandbox call");
      } else if (type == "log") {
        // Output of a block that has ended (a timer the runtime could not
        // attribute) is dropped: nobody waits for it.
        if (!ours) continue;
        std::string text = string_field(*parsed, "text");
        if (log_bytes + text.size() <= limits_.log_bytes) {
          log_bytes += text.size();
          std::string level = string_field(*parsed, "level");
          result.logs.push_back({level.empty() ? "info" : std::move(level), std::move(text)});
        } else if (!logs_cut) {
          // Said once, by the host: the runtime's own note no longer fits either.
          logs_cut = true;
          result.logs.push_back({"warn", fmt::format("[log output truncated at {} bytes]", limits_.log_bytes)});
        }
      } else if (type == "done") {
        if (!ours) continue;  // a late answer to a block that was already given up on
        fill_done(*parsed, result);
        co_return;
      } else {
        shared_->broken = true;
        fail(result, failure_kind::protocol,
             "the sandbox sent a '" + type.substr(0, 40) +
                 "' frame while a block ran; only call, log and done belong there");
        co_return;
      }
    }
  }

  void channel_failure(exec_result& result, const error& e, std::chrono::milliseconds timeout) {
    shared_->broken = true;
    if (shared_->deadline_hit) {
      fail(result, failure_kind::timeout,
           fmt::format("the code did not finish within {} ms and was stopped; the sandbox "
                       "was discarded, so variables from earlier blocks are gone",
                       timeout.count()));
    } else if (e.code == bridge::errc::frame_too_large) {
      fail(result, failure_kind::protocol, e.describe());
    } else {
      fail(
          result, failure_kind::sandbox,
          "the sandbox stopped while running the code (" + e.message + "); it may have run out of memory or processes");
    }
  }

  // The `error` of a failed `done`, reduced to {name, message, stack?} of
  // strings: whatever else the sandbox put there is dropped, so no reader
  // downstream meets a field of an unexpected type.
  static json error_of(const json& frame) {
    auto error = frame.find("error");
    if (error == frame.end() || !error->is_object()) return failure(to_string(failure_kind::code), "the code failed");
    std::string name = string_field(*error, "name");
    json out = failure(name.empty() ? to_string(failure_kind::code) : name, string_field(*error, "message"));
    if (std::string stack = string_field(*error, "stack"); !stack.empty()) out["stack"] = std::move(stack);
    return out;
  }

  static void fill_done(const json& frame, exec_result& result) {
    result.ok = bool_field(frame, "ok");
    // Informational only, and from the sandbox: a number in range, else 0.
    if (auto ms = frame.find("ms"); ms != frame.end() && ms->is_number()) {
      result.runtime_ms = std::clamp(ms->get<double>(), 0.0, 1e9);
    }
    if (result.ok) {
      result.value = frame.contains("value") ? frame["value"] : json();
    } else {
      result.failure = failure_kind::code;
      result.error = error_of(frame);
    }
    if (auto files = frame.find("files"); files != frame.end() && files->is_array()) {
      for (const auto& f : *files) {
        if (auto change = parse_file_change(f)) result.files.push_back(std::move(*change));
      }
    }
  }

  asio::any_io_executor executor_;
  core::clock& clock_;
  frame_channel& channel_;
  session_limits limits_;
  std::shared_ptr<protocol_state> shared_;
  unsigned long block_seq_ = 0;
};

}  // namespace

std::string_view to_string(failure_kind kind) {
  switch (kind) {
    case failure_kind::none:
      return "";
    case failure_kind::code:
      return "Error";
    case failure_kind::timeout:
      return "TimeoutError";
    case failure_kind::sandbox:
      return "SandboxError";
    case failure_kind::protocol:
      return "ProtocolError";
  }
  return "";
}

void fail(exec_result& result, failure_kind kind, std::string message) {
  result.ok = false;
  result.failure = kind;
  result.error = failure(to_string(kind), std::move(message));
}

namespace {

// Reads until a frame of `type` (for block `exec`, when not empty) arrives;
// other lines before it are logged and skipped. The caller's deadline
// cancels the channel.
asio::awaitable<result<json>> read_until_frame(frame_channel& channel, std::string type, std::string exec) {
  for (;;) {
    auto line = co_await channel.read_line();
    if (!line) co_return line.error();
    auto frame = parse_frame(*line);
    if (frame && string_field(*frame, "type") == type && (exec.empty() || string_field(*frame, "exec") == exec)) {
      co_return std::move(*frame);
    }
    core::log_warn("sandbox runtime wrote '{}' while the host waited for '{}'; ignored", line->substr(0, 200), type);
  }
}

// read_until_frame within `timeout`. `what` says what was awaited, for the errors.
asio::awaitable<result<json>> await_frame(core::clock& clock, frame_channel& channel, std::string type,
                                          std::string exec, std::chrono::milliseconds timeout, std::string_view what) {
  const auto deadline = clock.steady_now() + timeout;
  auto on_expiry = [&channel] { channel.cancel(); };
  auto reading = read_until_frame(channel, std::move(type), std::move(exec));
  auto got = co_await core::with_deadline(clock, std::move(reading), deadline, on_expiry);
  if (got.value) co_return std::move(*got.value);
  if (got.expired) {
    co_return make_error(bridge::errc::sandbox_timeout,
                         fmt::format("the sandbox runtime did not {} within {} ms", what, timeout.count()),
                         "check the sandbox image (SANDBOX_IMAGE) and the engine's load");
  }
  co_return make_error(bridge::errc::sandbox_failed, fmt::format("the sandbox runtime ended before it could {}: {}",
                                                                 what, got.value.error().message));
}

}  // namespace

asio::awaitable<status> wait_for_ready(core::clock& clock, frame_channel& channel, std::chrono::milliseconds timeout) {
  auto ready = co_await await_frame(clock, channel, "ready", "", timeout, "start");
  if (!ready) co_return ready.error();
  co_return status{};
}

asio::awaitable<status> prime_runtime(core::clock& clock, frame_channel& channel, std::vector<init_file> files,
                                      std::chrono::milliseconds timeout) {
  json frame{{"type", "put"}, {"id", "prime"}, {"files", files_json(files)}};
  auto sent = co_await channel.write_line(dump_frame(frame));
  if (!sent) co_return make_error(bridge::errc::sandbox_failed, "the sandbox took no files: " + sent.error().message);
  auto done = co_await await_frame(clock, channel, "done", "prime", timeout, "take the shared files");
  if (!done) co_return done.error();
  if (!done->value("ok", false)) {
    const json refusal = done->value("error", json::object());
    co_return make_error(bridge::errc::sandbox_put_failed,
                         "the sandbox refused the shared files: " + string_field(refusal, "message"));
  }
  co_return status{};
}

std::unique_ptr<runtime_session> create_runtime_session(const asio::any_io_executor& executor, core::clock& clock,
                                                        frame_channel& channel, tool_gateway& tools,
                                                        data_filter& filter, session_limits limits) {
  return std::make_unique<runtime_session_impl>(executor, clock, channel, tools, filter, limits);
}

}  // namespace harness::bridge
