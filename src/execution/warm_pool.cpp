#include "harness/execution/warm_pool.hpp"

#include <algorithm>
#include <deque>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "attach_frame_channel.hpp"
#include "harness/bridge/runtime_session.hpp"
#include "harness/core/async_signal.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/run_blocking.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/sandbox/container_body.hpp"

namespace harness::execution {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
// Pool containers carry this task label until a task claims them.
constexpr const char* pool_task = "pool";

class warm_pool_impl final : public warm_pool, public std::enable_shared_from_this<warm_pool_impl> {
 public:
  warm_pool_impl(const asio::any_io_executor& executor, std::shared_ptr<sandbox::sandbox_backend> backend,
                 pool_config config)
      : executor_(executor), backend_(std::move(backend)), config_(config), wake_(executor), starting_(executor) {}

  void start() override {
    if (config_.size == 0) return;
    core::spawn_logged(executor_, refill_loop(shared_from_this()), "warm pool: refilling");
  }

  asio::awaitable<result<sandbox_lease>> claim() override {
    while (!ready_.empty()) {
      sandbox_lease lease = std::move(ready_.front());
      ready_.pop_front();
      wake_.notify_all();  // refill
      ++warm_claims_;
      lease.warm = true;
      co_return lease;
    }
    ++cold_claims_;
    co_return co_await start_one();
  }

  asio::awaitable<void> shutdown() override {
    stopping_ = true;
    wake_.notify_all();
    // A start in flight finishes (and removes its container) before we return:
    // otherwise the engine could create a container after the backend's final
    // cleanup, and nothing would ever remove it.
    co_await starting_.wait_zero();
    while (!ready_.empty()) {
      auto lease = std::move(ready_.front());
      ready_.pop_front();
      lease.channel.reset();
      co_await lease.container->stop();
    }
  }

  pool_stats stats() const override {
    return {config_.size, ready_.size(),  starting_.count(), warm_claims_,
            cold_claims_, failed_starts_, linked_,           link_failures_};
  }

 private:
  // Creates, attaches and starts a container, waits for its runtime and,
  // with a call socket folder, moves the runtime onto its socket.
  asio::awaitable<result<sandbox_lease>> start_one() {
    sandbox_lease lease;
    std::unique_ptr<bridge::call_socket> socket;
    std::string socket_path;
    if (!config_.call_socket_dir.empty()) {
      // Before the container: the engine mounts the socket file when it starts it.
      auto made = bridge::call_socket::listen(executor_, config_.call_socket_dir, sandbox::call_socket_mount);
      if (made) {
        socket = std::move(*made);
        socket_path = socket->path();
      } else {
        // A sandbox on stdio still works, only slower: better than none.
        ++link_failures_;
        core::log_warn("sandbox call socket: {}; this sandbox stays on stdio", made.error().describe());
      }
    }
    auto container = co_await backend_->start(pool_task, std::move(socket_path));
    if (!container) co_return container.error();
    lease.container = std::move(*container);
    lease.channel = create_attach_frame_channel(lease.container->stream(), lease.container->id().substr(0, 12));
    auto ready = co_await bridge::wait_for_ready(executor_, *lease.channel, config_.ready_timeout);
    if (!ready) {
      lease.channel.reset();
      co_await lease.container->stop();
      co_return ready.error();
    }
    if (socket) {
      auto linked = co_await bridge::link_runtime(*lease.channel, *socket, config_.ready_timeout);
      if (!linked) {
        // The runtime stays on stdio, which works, only slower.
        ++link_failures_;
        core::log_warn("sandbox {}: no call socket ({}); its frames stay on stdio", lease.container->id().substr(0, 12),
                       linked.error().describe());
      } else {
        ++linked_;
        lease.stdio = std::move(lease.channel);
        lease.channel = std::move(*linked);
      }
    }
    if (config_.files) {
      // A named lambda holding a plain pointer (the pool owns `files`): GCC 12
      // destroys a lambda temporary inside co_await twice, which a captured
      // shared_ptr does not survive (see run_blocking.hpp).
      sandbox_files* files = config_.files.get();
      auto read_shared = [files] { return files->shared_files(); };
      auto shared = co_await core::run_blocking(config_.blocking, read_shared);
      if (!shared.empty()) {
        auto primed = co_await bridge::prime_runtime(*lease.channel, std::move(shared), config_.ready_timeout);
        if (!primed) {
          lease.channel.reset();
          lease.stdio.reset();
          co_await lease.container->stop();
          co_return primed.error();
        }
      }
    }
    co_return lease;
  }

  static asio::awaitable<void> refill_loop(std::shared_ptr<warm_pool_impl> self) {
    auto backoff = 500ms;
    while (!self->stopping_) {
      if (self->ready_.size() + self->starting_.count() < self->config_.size) {
        // One start at a time: on a small machine parallel starts only slow
        // each other and the requests being served.
        self->starting_.add();
        auto lease = co_await self->start_one();
        if (lease && self->stopping_) {
          lease->channel.reset();
          co_await lease->container->stop();
          self->starting_.done();
          break;
        }
        self->starting_.done();
        if (lease) {
          self->ready_.push_back(std::move(*lease));
          backoff = 500ms;
          continue;
        }
        if (self->stopping_) break;
        ++self->failed_starts_;
        core::log_warn("warm pool: could not start a sandbox ({}); retrying in {} ms", lease.error().describe(),
                       backoff.count());
        co_await self->wake_.wait_for(backoff);  // a claim or shutdown cuts the backoff short
        backoff = std::min<std::chrono::milliseconds>(backoff * 2, 30s);
        continue;
      }
      co_await self->wake_.wait();
    }
  }

  asio::any_io_executor executor_;
  std::shared_ptr<sandbox::sandbox_backend> backend_;
  pool_config config_;
  core::async_signal wake_;  // a claim took a sandbox, or shutdown began
  std::deque<sandbox_lease> ready_;
  core::async_counter starting_;  // starts in flight; shutdown waits for them
  std::uint64_t warm_claims_ = 0, cold_claims_ = 0, failed_starts_ = 0, linked_ = 0, link_failures_ = 0;
  bool stopping_ = false;
};

class pool_health_source final : public core::health_source {
 public:
  explicit pool_health_source(std::shared_ptr<warm_pool> pool) : pool_(std::move(pool)) {}
  std::string name() const override { return "pool"; }
  core::component_health check() const override {
    auto s = pool_->stats();
    return {true,
            false,
            {{"target", s.target},
             {"ready", s.ready},
             {"starting", s.starting},
             {"warmClaims", s.warm_claims},
             {"coldClaims", s.cold_claims},
             {"failedStarts", s.failed_starts},
             {"linked", s.linked},
             {"linkFailures", s.link_failures}}};
  }

 private:
  std::shared_ptr<warm_pool> pool_;
};

}  // namespace

std::shared_ptr<warm_pool> create_warm_pool(const asio::any_io_executor& executor,
                                            std::shared_ptr<sandbox::sandbox_backend> backend, pool_config config) {
  return std::make_shared<warm_pool_impl>(executor, std::move(backend), config);
}

std::shared_ptr<core::health_source> pool_health(std::shared_ptr<warm_pool> pool) {
  return std::make_shared<pool_health_source>(std::move(pool));
}

void register_pool_metrics(core::metrics_registry& registry, const std::shared_ptr<warm_pool>& pool) {
  using core::sample;
  auto read = [weak = std::weak_ptr<warm_pool>(pool)](auto pick) {
    return [weak, pick] {
      auto p = weak.lock();
      return p ? pick(p->stats()) : std::vector<sample>{};
    };
  };
  registry.add_callback(
      "harness_sandbox_claims_total", "Sandboxes claimed for a task, warm (from the pool) or cold.",
      core::metric_type::counter, {"kind"}, read([](const pool_stats& s) {
        return std::vector<sample>{{{"warm"}, double(s.warm_claims)}, {{"cold"}, double(s.cold_claims)}};
      }));
  registry.add_callback("harness_sandbox_pool_ready", "Sandboxes started and waiting in the warm pool.",
                        core::metric_type::gauge, {}, read([](const pool_stats& s) {
                          return std::vector<sample>{{{}, double(s.ready)}};
                        }));
  registry.add_callback("harness_sandbox_pool_target",
                        "Sandboxes the warm pool tries to keep ready (SANDBOX_POOL_SIZE).", core::metric_type::gauge,
                        {}, read([](const pool_stats& s) {
                          return std::vector<sample>{{{}, double(s.target)}};
                        }));
  registry.add_callback("harness_sandbox_start_failures_total", "Pool sandboxes that failed to start.",
                        core::metric_type::counter, {}, read([](const pool_stats& s) {
                          return std::vector<sample>{{{}, double(s.failed_starts)}};
                        }));
  registry.add_callback(
      "harness_sandbox_links_total",
      "Sandboxes started with a call socket: linked to it, or left on stdio (slower; the log says why).",
      core::metric_type::counter, {"result"}, read([](const pool_stats& s) {
        return std::vector<sample>{{{"linked"}, double(s.linked)}, {{"stdio"}, double(s.link_failures)}};
      }));
}

}  // namespace harness::execution
