#include <mutex>
#include <set>

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "cgroup_pids.hpp"
#include "container_session.hpp"
#include "harness/core/ids.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/sandbox/container_body.hpp"
#include "harness/sandbox/output_collector.hpp"
#include "harness/sandbox/sandbox.hpp"
#include "run_classifier.hpp"

namespace harness::sandbox {
namespace {

namespace asio = boost::asio;
using clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

milliseconds since(clock::time_point t) {
  return std::chrono::duration_cast<milliseconds>(clock::now() - t);
}

// Shared between a run and its deadline watchdog (which may outlive the run's frame).
struct watchdog_state {
  explicit watchdog_state(asio::any_io_executor ex) : timer(std::move(ex)) {}
  asio::steady_timer timer;
  bool fired = false;  // the deadline passed and the container is being killed
  bool pids_at_limit = false;
};

class docker_sandbox final : public sandbox_backend,
                             public detail::container_owner,
                             public std::enable_shared_from_this<docker_sandbox> {
 public:
  docker_sandbox(asio::any_io_executor executor, std::shared_ptr<docker::engine_client> engine, sandbox_config config)
      : executor_(std::move(executor)), engine_(std::move(engine)), config_(std::move(config)) {}

  task<result<std::unique_ptr<sandbox_container>>> start(std::string task_id, std::string call_socket) override {
    // Long-lived sandboxes run the REPL runtime (docs/architecture/runtime-protocol.md).
    std::vector<std::string> runtime{"node", "/opt/sandbox/runtime/runtime.js"};
    auto prepared = co_await prepare(std::move(task_id), std::move(runtime), std::move(call_socket));
    if (!prepared) co_return prepared.error();
    auto started = co_await engine_->start_container((*prepared)->id());
    if (!started) {
      co_await (*prepared)->stop();
      co_return started.error();
    }
    co_return std::unique_ptr<sandbox_container>(std::move(*prepared));
  }

  task<result<run_result>> run_once(std::string task_id, std::string code) override {
    auto t0 = clock::now();
    if (static_cast<std::int64_t>(code.size()) > config_.max_code_bytes) {
      co_return make_error("sandbox_bad_request",
                           fmt::format("the code block is larger than {} bytes", config_.max_code_bytes),
                           "send smaller code; move data into files or tools");
    }
    // One-shot blocks run under the image's entrypoint: the simple runner.
    auto prepared = co_await prepare(std::move(task_id), std::vector<std::string>{});
    if (!prepared) co_return prepared.error();
    auto container = std::move(*prepared);
    auto created = since(t0);

    std::optional<result<run_result>> out;
    std::exception_ptr failure;
    try {
      out = co_await drive(*container, code);
    } catch (...) {
      failure = std::current_exception();
    }
    auto stopped = co_await container->stop();  // on every path, exception included
    if (failure) std::rethrow_exception(failure);
    if (!stopped) log_stop_failure(container->id(), stopped.error());
    if (*out) {
      (*out)->timings.create = created;
      (*out)->timings.total = since(t0);
    }
    co_return std::move(*out);
  }

  task<result<std::size_t>> sweep(std::function<bool(const std::string&)> is_live) override {
    auto listed = co_await engine_->list_containers(fmt::format("{}={}", owner_label, config_.owner), true);
    if (!listed) co_return listed.error();
    std::size_t removed = 0;
    for (const auto& c : *listed) {
      if (owns(c.id)) continue;
      auto task = c.labels.find(task_label);
      if (is_live && task != c.labels.end() && is_live(task->second)) continue;
      auto s = co_await engine_->remove_container(c.id, true);
      if (s || s.error().code == "docker_not_found") {
        ++removed;
      } else {
        core::log_warn("sandbox sweep: could not remove container {}: {}", c.id.substr(0, 12), s.error().describe());
      }
    }
    if (removed > 0) core::log_info("sandbox sweep removed {} leftover container(s)", removed);
    co_return removed;
  }

  task<void> shutdown() override {
    std::set<std::string> ids;
    {
      std::lock_guard lock(mutex_);
      shutting_down_ = true;
      ids = live_;
    }
    for (const auto& id : ids) (void)co_await remove(id);
  }

  std::size_t live_count() const override {
    std::lock_guard lock(mutex_);
    return live_.size();
  }

  // container_owner: how a container handle removes itself.
  task<status> remove(std::string id) override {
    auto s = co_await engine_->remove_container(id, true);
    if (!s && s.error().code != "docker_not_found") co_return s;
    std::lock_guard lock(mutex_);
    live_.erase(id);
    co_return status{};
  }

  void remove_later(std::string id) override {
    core::spawn_logged(
        executor_,
        [self = shared_from_this(), id]() -> task<void> {
          auto s = co_await self->remove(id);
          if (!s) self->log_stop_failure(id, s.error());
        },
        "sandbox: removing container " + id.substr(0, 12));
  }

 private:
  bool owns(const std::string& id) const {
    std::lock_guard lock(mutex_);
    return live_.count(id) > 0;
  }

  void log_stop_failure(const std::string& id, const error& e) {
    core::log_warn("sandbox: could not remove container {} (the next sweep will): {}", id.substr(0, 12), e.describe());
  }

  // Create + attach, not started: attaching first means no output is missed.
  task<result<std::unique_ptr<detail::container_session>>> prepare(std::string task_id,
                                                                   std::vector<std::string> entrypoint,
                                                                   std::string call_socket = {}) {
    if (!core::is_safe_id(task_id)) {
      co_return make_error("sandbox_bad_request", fmt::format("invalid task id '{}'", task_id.substr(0, 64)),
                           "task ids are 1-128 characters of letters, digits, . _ -");
    }
    {
      std::lock_guard lock(mutex_);
      if (shutting_down_) co_return make_error("sandbox_shutting_down", "the server is shutting down");
    }
    auto body = hardened_container_body(config_, task_id, entrypoint, call_socket);
    auto id = co_await engine_->create_container(body, "");
    if (!id) {
      auto e = id.error();
      if (e.code == "docker_image_not_found") {
        e.message = fmt::format("sandbox image {} not found", config_.image);
        e.hint = "run ./sandbox/build-image.sh (./scripts/run.sh runs it), or set SANDBOX_IMAGE to an existing image";
      }
      co_return e;
    }
    {
      std::lock_guard lock(mutex_);
      live_.insert(*id);
    }
    auto stream = co_await engine_->attach_container(*id);
    if (!stream) {
      (void)co_await remove(*id);
      co_return stream.error();
    }
    co_return std::make_unique<detail::container_session>(shared_from_this(), *id, std::move(task_id),
                                                          std::move(*stream));
  }

  // Start, feed the code, collect output under the deadline and the cap, read the exit state.
  task<result<run_result>> drive(detail::container_session& container, const std::string& code) {
    run_result out;
    out.container_id = container.id();
    auto t_start = clock::now();
    auto deadline = t_start + config_.timeout;
    if (auto s = co_await engine_->start_container(container.id()); !s) co_return s.error();
    if (auto s = co_await container.stream().write_stdin(code, config_.timeout); !s) co_return s.error();
    if (auto s = container.stream().close_stdin(); !s) co_return s.error();
    out.timings.start = since(t_start);

    auto watchdog = std::make_shared<watchdog_state>(executor_);
    watchdog->timer.expires_at(deadline);
    core::spawn_logged(executor_, watch(watchdog, engine_, container.id(), config_.pids_limit),
                       "sandbox: deadline watchdog of " + container.id().substr(0, 12));

    output_collector output(config_.output_limit_bytes);
    bool killed_for_output = false;
    std::optional<error> stream_error;
    for (;;) {
      // The kill at the deadline ends the stream; the grace only guards against an engine that hangs.
      auto budget = std::max(milliseconds(1), std::chrono::duration_cast<milliseconds>(deadline - clock::now())) +
                    milliseconds(10'000);
      auto chunk = co_await container.stream().read(budget);
      if (!chunk) {
        stream_error = chunk.error();
        break;
      }
      if (!*chunk) break;
      if (!output.add(**chunk) && !killed_for_output) {
        killed_for_output = true;
        (void)co_await engine_->kill_container(container.id(), "SIGKILL");
      }
    }
    watchdog->timer.cancel();
    out.timings.run = since(t_start);
    if (stream_error) {
      (void)co_await engine_->kill_container(container.id(), "SIGKILL");
    }

    auto waited = co_await engine_->wait_container(container.id(), milliseconds(15'000));
    if (!waited) co_return waited.error();
    auto state = co_await engine_->inspect_container(container.id());
    if (!state) co_return state.error();

    out.exit_code = state->exit_code;
    out.output_truncated = output.truncated();
    out.stdout_text = output.take_stdout();
    out.stderr_text = output.take_stderr();
    detail::run_facts facts{watchdog->fired, state->oom_killed, watchdog->pids_at_limit, killed_for_output,
                            state->exit_code};
    detail::classify(out, facts, config_);
    if (stream_error && out.outcome == run_outcome::ok) co_return *stream_error;
    co_return out;
  }

  // Kills the container at the deadline; first samples its process count, so a
  // fork bomb is reported as such rather than as a plain timeout.
  static task<void> watch(std::shared_ptr<watchdog_state> state, std::shared_ptr<docker::engine_client> engine,
                          std::string id, std::int64_t pids_limit) {
    auto [ec] = co_await state->timer.async_wait(asio::as_tuple(asio::use_awaitable));
    if (ec) co_return;  // the run finished first
    // The kernel's counter of refused forks is exact but only readable when the
    // engine runs on this host; otherwise sample the count, within a margin:
    // a fork bomb's processes come and go.
    if (auto hits = detail::pids_limit_hits(id); hits && *hits > 0) {
      state->pids_at_limit = true;
    } else if (auto pids = co_await engine->container_pids(id);
               pids && pids->current >= pids_limit - std::max<std::int64_t>(4, pids_limit / 16)) {
      state->pids_at_limit = true;
    }
    // Marked before the kill: the kill ends the output stream at once, and
    // the run may read the exit state and classify before this coroutine
    // resumes from the kill call (seen under load). If the kill call fails,
    // the run's own grace period kills the container.
    state->fired = true;
    auto killed = co_await engine->kill_container(id, "SIGKILL");
    if (!killed) {
      core::log_warn("sandbox: could not kill container {} at its deadline: {}", id.substr(0, 12),
                     killed.error().describe());
    }
  }

  asio::any_io_executor executor_;
  std::shared_ptr<docker::engine_client> engine_;
  sandbox_config config_;
  mutable std::mutex mutex_;
  std::set<std::string> live_;
  bool shutting_down_ = false;
};

}  // namespace

const char* to_string(run_outcome outcome) {
  switch (outcome) {
    case run_outcome::ok:
      return "ok";
    case run_outcome::code_error:
      return "code_error";
    case run_outcome::timeout:
      return "timeout";
    case run_outcome::out_of_memory:
      return "out_of_memory";
    case run_outcome::pids_limit:
      return "pids_limit";
    case run_outcome::output_limit:
      return "output_limit";
  }
  return "unknown";
}

std::shared_ptr<sandbox_backend> create_docker_sandbox(asio::any_io_executor executor,
                                                       std::shared_ptr<docker::engine_client> engine,
                                                       sandbox_config config) {
  return std::make_shared<docker_sandbox>(std::move(executor), std::move(engine), std::move(config));
}

}  // namespace harness::sandbox
