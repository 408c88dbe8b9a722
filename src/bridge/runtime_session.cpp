#include "harness/bridge/runtime_session.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <fmt/format.h>

#include "frames.hpp"
#include "harness/core/base64.hpp"
#include "harness/core/logging.hpp"
#include "session_shared.hpp"

namespace harness::bridge {
namespace {

namespace asio = boost::asio;
using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

json failure(std::string name, std::string message) {
  return {{"name", std::move(name)}, {"message", std::move(message)}};
}

// Cancels the channel (so the pending read ends) when the time is up. The
// `active` flag covers a completion already queued when the guard goes away:
// it must not cancel a channel that has moved on to the next block.
class deadline_guard {
 public:
  deadline_guard(const asio::any_io_executor& executor, std::shared_ptr<session_shared> shared,
                 std::chrono::milliseconds timeout)
      : timer_(executor, timeout) {
    shared->deadline_hit = false;
    timer_.async_wait([shared, active = active_](boost::system::error_code ec) {
      if (ec || !*active || !shared->alive) return;
      shared->deadline_hit = true;
      shared->broken = true;
      shared->channel.cancel();
    });
  }
  ~deadline_guard() {
    *active_ = false;
    timer_.cancel();
  }
  clock_type::time_point expiry() const { return timer_.expiry(); }

 private:
  std::shared_ptr<bool> active_ = std::make_shared<bool>(true);
  asio::steady_timer timer_;
};

class runtime_session_impl final : public runtime_session {
 public:
  runtime_session_impl(const asio::any_io_executor& executor, frame_channel& channel, tool_gateway& tools,
                       data_filter& filter, session_limits limits)
      : executor_(executor),
        channel_(channel),
        limits_(limits),
        shared_(std::make_shared<session_shared>(executor, channel, tools, filter)) {}

  ~runtime_session_impl() override { shared_->alive = false; }

  asio::awaitable<status> wait_ready(std::chrono::milliseconds timeout) override {
    auto ready = co_await wait_for_ready(executor_, channel_, timeout);
    if (!ready) shared_->broken = true;
    co_return ready;
  }

  asio::awaitable<status> init(std::string session_id, std::vector<init_file> files) override {
    auto& shared = *shared_;
    json list = json::array();
    for (auto& f : files) {
      list.push_back(
          {{"root", f.root}, {"path", f.path}, {"content", core::base64_encode(f.content)}, {"encoding", "base64"}});
    }
    json limits{{"logBytes", limits_.log_bytes}, {"maxFileBytes", limits_.max_file_bytes}, {"maxFiles", limits_.max_files}};
    json frame{{"type", "init"}, {"session", session_id}, {"limits", limits}, {"files", std::move(list)}};
    co_return co_await shared.send(dump_frame(frame));
  }

  asio::awaitable<exec_result> exec(std::string code, std::chrono::milliseconds timeout) override {
    auto& shared = *shared_;
    auto started = clock_type::now();
    exec_result result;
    if (shared.broken) {
      result.error = failure("SandboxError", "this sandbox can no longer run code (an earlier block broke it); "
                                             "start a new session");
      co_return result;
    }
    std::string exec_id = "x" + std::to_string(++exec_seq_);
    shared.current_exec = exec_id;
    shared.calls.clear();
    deadline_guard deadline(executor_, shared_, timeout);
    json exec_frame{{"type", "exec"}, {"id", exec_id}, {"code", std::move(code)}};
    auto sent = co_await shared.send(dump_frame(exec_frame));
    if (!sent) result.error = channel_failure(sent.error(), timeout);
    std::size_t log_bytes = 0;
    while (sent) {
      auto line = co_await channel_.read_line();
      if (!line) {
        result.error = channel_failure(line.error(), timeout);
        break;
      }
      auto frame = parse_frame(*line);
      if (!frame) {
        shared.broken = true;
        result.error = failure("ProtocolError", frame.error().describe());
        break;
      }
      const std::string type = frame->value("type", "");
      if (type == "call") {
        ++shared.outstanding;  // before the spawn: see session_shared::outstanding
        auto call = handle_call(shared_, std::move(*frame));
        asio::co_spawn(executor_, std::move(call), asio::detached);
      } else if (type == "log" && frame->value("exec", "") == exec_id) {
        std::string text = frame->value("text", "");
        if (log_bytes + text.size() <= limits_.log_bytes) {
          log_bytes += text.size();
          result.logs.push_back({frame->value("level", "info"), std::move(text)});
        }
      } else if (type == "done" && frame->value("exec", "") == exec_id) {
        fill_done(*frame, result);
        break;
      }
    }
    // Calls the block started but did not await still need the channel: they
    // get until the deadline, then fail on their own.
    co_await shared.wait_calls_idle(deadline.expiry());
    shared.current_exec.clear();
    result.tool_calls = std::move(shared.calls);
    result.ms = std::chrono::duration<double, std::milli>(clock_type::now() - started).count();
    co_return result;
  }

  bool broken() const override { return shared_->broken; }

 private:
  json channel_failure(const error& e, std::chrono::milliseconds timeout) {
    shared_->broken = true;
    if (shared_->deadline_hit) {
      return failure("TimeoutError", fmt::format("the code did not finish within {} ms and was stopped; the sandbox "
                                                 "was discarded, so variables from earlier blocks are gone",
                                                 timeout.count()));
    }
    if (e.code == "frame_too_large") return failure("ProtocolError", e.describe());
    return failure("SandboxError", "the sandbox stopped while running the code (" + e.message +
                                       "); it may have run out of memory or processes");
  }

  static void fill_done(const json& frame, exec_result& result) {
    result.ok = frame.value("ok", false);
    if (result.ok) {
      result.value = frame.contains("value") ? frame["value"] : json();
    } else {
      auto error = frame.find("error");
      result.error = error != frame.end() && error->is_object() ? *error : failure("Error", "the code failed");
    }
    if (auto files = frame.find("files"); files != frame.end() && files->is_array()) {
      for (const auto& f : *files) {
        if (auto change = parse_file_change(f)) result.files.push_back(std::move(*change));
      }
    }
  }

  asio::any_io_executor executor_;
  frame_channel& channel_;
  session_limits limits_;
  std::shared_ptr<session_shared> shared_;
  unsigned long exec_seq_ = 0;
};

}  // namespace

asio::awaitable<status> wait_for_ready(const asio::any_io_executor& executor, frame_channel& channel,
                                       std::chrono::milliseconds timeout) {
  struct wait_state {
    bool finished = false;
    bool timed_out = false;
  };
  auto state = std::make_shared<wait_state>();
  asio::steady_timer timer(executor, timeout);
  timer.async_wait([state, &channel](boost::system::error_code ec) {
    if (ec || state->finished) return;  // finished: `channel` may belong to someone else by now
    state->timed_out = true;
    channel.cancel();
  });
  struct finish_on_exit {
    wait_state& s;
    ~finish_on_exit() { s.finished = true; }
  } finish{*state};
  for (;;) {
    auto line = co_await channel.read_line();
    if (!line) {
      timer.cancel();
      if (state->timed_out) {
        co_return make_error("sandbox_timeout", fmt::format("the sandbox runtime did not start within {} ms", timeout.count()),
                             "check the sandbox image (SANDBOX_IMAGE) and the engine's load");
      }
      co_return make_error("sandbox_failed", "the sandbox runtime ended before it was ready: " + line.error().message);
    }
    auto frame = parse_frame(*line);
    if (frame && frame->value("type", "") == "ready") {
      timer.cancel();
      co_return status{};
    }
    core::log_warn("sandbox runtime wrote '{}' before ready; ignored", line->substr(0, 200));
  }
}

std::unique_ptr<runtime_session> create_runtime_session(const asio::any_io_executor& executor,
                                                        frame_channel& channel, tool_gateway& tools,
                                                        data_filter& filter, session_limits limits) {
  return std::make_unique<runtime_session_impl>(executor, channel, tools, filter, limits);
}

}  // namespace harness::bridge
