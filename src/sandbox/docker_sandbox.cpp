#include <mutex>
#include <set>

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>

#include "container_session.hpp"
#include "harness/core/ids.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/docker/errors.hpp"
#include "harness/sandbox/container_body.hpp"
#include "harness/sandbox/errors.hpp"
#include "harness/sandbox/process_label.hpp"
#include "harness/sandbox/sandbox.hpp"

namespace harness::sandbox {
namespace {

namespace asio = boost::asio;

class docker_sandbox final : public sandbox_backend,
                             public detail::container_owner,
                             public std::enable_shared_from_this<docker_sandbox> {
 public:
  docker_sandbox(asio::any_io_executor executor, std::shared_ptr<docker::engine_client> engine, sandbox_config config)
      : executor_(std::move(executor)), engine_(std::move(engine)), config_(std::move(config)) {}

  using sandbox_backend::start;
  task<result<std::unique_ptr<sandbox_container>>> start(std::string task_id, std::string call_socket,
                                                         language lang) override {
    // Every sandbox runs a REPL runtime (docs/architecture/runtime-protocol.md).
    auto prepared = co_await prepare(std::move(task_id), runtime_command(lang), std::move(call_socket));
    if (!prepared) co_return prepared.error();
    auto started = co_await engine_->start_container((*prepared)->id());
    if (!started) {
      co_await (*prepared)->stop();
      co_return started.error();
    }
    co_return std::unique_ptr<sandbox_container>(std::move(*prepared));
  }

  task<result<std::size_t>> sweep(std::function<bool(const std::string&)> is_live) override {
    auto listed = co_await engine_->list_containers(fmt::format("{}={}", owner_label, config_.owner), true);
    if (!listed) co_return listed.error();
    std::size_t removed = 0, others = 0;
    for (const auto& c : *listed) {
      if (owns(c.id)) continue;
      auto task = c.labels.find(task_label);
      if (is_live && task != c.labels.end() && is_live(task->second)) continue;
      // Another harness process with the same SANDBOX_OWNER, still running, uses it.
      auto maker = c.labels.find(process_label);
      if (maker != c.labels.end() && maker->second != this_process() && process_alive(maker->second)) {
        ++others;
        continue;
      }
      auto s = co_await engine_->remove_container(c.id, true);
      if (s || s.error().code == docker::errc::not_found) {
        ++removed;
      } else {
        core::log_warn("sandbox sweep: could not remove container {}: {}", c.id.substr(0, 12), s.error().describe());
      }
    }
    if (removed > 0) core::log_info("sandbox sweep removed {} leftover container(s)", removed);
    if (others > 0) {
      core::log_info("sandbox sweep left {} container(s) of other running mcp-harness processes alone", others);
    }
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
    if (!s && s.error().code != docker::errc::not_found) co_return s;
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
      co_return make_error(sandbox::errc::bad_request, fmt::format("invalid task id '{}'", task_id.substr(0, 64)),
                           "task ids are 1-128 characters of letters, digits, . _ -");
    }
    {
      std::lock_guard lock(mutex_);
      if (shutting_down_) co_return make_error(sandbox::errc::shutting_down, "the server is shutting down");
    }
    auto body = hardened_container_body(config_, task_id, entrypoint, call_socket);
    auto id = co_await engine_->create_container(body, "");
    if (!id) {
      auto e = id.error();
      if (e.code == docker::errc::image_not_found) {
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

  asio::any_io_executor executor_;
  std::shared_ptr<docker::engine_client> engine_;
  sandbox_config config_;
  mutable std::mutex mutex_;
  std::set<std::string> live_;
  bool shutting_down_ = false;
};

}  // namespace

std::shared_ptr<sandbox_backend> create_docker_sandbox(asio::any_io_executor executor,
                                                       std::shared_ptr<docker::engine_client> engine,
                                                       sandbox_config config) {
  return std::make_shared<docker_sandbox>(std::move(executor), std::move(engine), std::move(config));
}

}  // namespace harness::sandbox
