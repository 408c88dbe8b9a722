#include "harness/execution/warm_pool.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "attach_frame_channel.hpp"
#include "harness/bridge/errors.hpp"
#include "harness/bridge/runtime_session.hpp"
#include "harness/core/async_signal.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/run_blocking.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/sandbox/container_body.hpp"
#include "harness/telemetry/tracer.hpp"
#include "pool_sizer.hpp"

namespace harness::execution {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
// Pool containers carry this task label until a task claims them.
constexpr const char* pool_task = "pool";
// Sandboxes over the target are shed once no claim came for this long.
constexpr auto shed_after = 10s;
// How many claim waits the percentiles in stats() cover.
constexpr std::size_t claim_waits_kept = 200;
// A warm claim wakes the refill this much later rather than at once: by then
// the claimer has sent its frames and usually has its first answer. Started
// at once, the replacement's setup ran on the I/O thread before the
// claimer's exec frame, and the engine's create competed with its first
// block for this machine's two cores. Small beside a start (~0.5 s).
constexpr auto replacement_delay = 10ms;
// Starts a cold claim makes when runtimes end before they are ready.
constexpr int cold_start_attempts = 3;

// The runtime ended (rather than timed out or was refused) while it started.
bool died_before_ready(const error& e) {
  return e.code == bridge::errc::sandbox_failed;
}

class warm_pool_impl final : public warm_pool, public std::enable_shared_from_this<warm_pool_impl> {
 public:
  warm_pool_impl(const asio::any_io_executor& executor, core::clock& clock,
                 std::shared_ptr<sandbox::sandbox_backend> backend, pool_config config)
      : executor_(executor),
        clock_(clock),
        backend_(std::move(backend)),
        config_(config),
        wake_(executor, clock),
        replacement_timer_(clock.make_timer(executor)),
        starting_(executor, clock),
        sizer_({.min_ready = config.size,
                .max_ready = std::max(config.size, config.max_size),
                .max_parallel = std::max<std::size_t>(1, config.parallel_starts)}) {}

  void start() override {
    if (!pooled()) return;
    core::spawn_logged(executor_, refill_loop(shared_from_this()), "warm pool: refilling");
  }

  asio::awaitable<result<sandbox_lease>> claim() override {
    const auto asked = clock_.steady_now();
    if (pooled()) sizer_.claimed(asked);
    if (!ready_.empty()) {
      sandbox_lease lease = std::move(ready_.front());
      ready_.pop_front();
      wake_soon();  // a replacement starts in a moment
      ++warm_claims_;
      lease.warm = true;
      note_wait(asked);
      co_return lease;
    }
    ++cold_claims_;
    wake_.notify_all();  // demand rose: the target may have too
    auto lease = co_await start_one();
    // A runtime that died on its way up is the start's accident, not the
    // caller's: another start gets a go (each is counted in stats()).
    for (int attempt = 1; !lease && died_before_ready(lease.error()) && attempt < cold_start_attempts; ++attempt) {
      if (stopping_) break;
      core::log_warn("sandbox runtime ended before it was ready ({}); starting another", lease.error().describe());
      lease = co_await start_one();
    }
    note_wait(asked);
    co_return lease;
  }

  asio::awaitable<void> shutdown() override {
    stopping_ = true;
    replacement_timer_->cancel();
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
    const auto now = clock_.steady_now();
    pool_stats out;
    out.target = pooled() ? sizer_.target(now) : 0;
    out.min = config_.size;
    out.max = pooled() ? std::max(config_.size, config_.max_size) : 0;
    out.ready = ready_.size();
    out.starting = starting_.count();
    out.parallel = sizer_.parallel();
    out.claims_per_second = sizer_.claims_per_second(now);
    out.start_time = sizer_.start_time();
    std::vector<std::chrono::microseconds> waits(claim_waits_.begin(), claim_waits_.end());
    std::sort(waits.begin(), waits.end());
    if (!waits.empty()) {
      out.claim_wait_p50 = waits[(waits.size() - 1) / 2];
      out.claim_wait_p99 = waits[(waits.size() - 1) * 99 / 100];
    }
    out.warm_claims = warm_claims_;
    out.cold_claims = cold_claims_;
    out.failed_starts = failed_starts_;
    out.died_before_ready = died_before_ready_;
    out.linked = linked_;
    out.link_failures = link_failures_;
    return out;
  }

 private:
  // Whether it keeps sandboxes at all: a minimum, or on demand up to a maximum.
  bool pooled() const { return config_.size > 0 || (config_.on_demand && config_.max_size > 0); }

  // Creates, attaches and starts a container, waits for its runtime and,
  // with a call socket folder, moves the runtime onto its socket.
  // A start with its span: how long a sandbox takes, and why one failed.
  asio::awaitable<result<sandbox_lease>> start_one() {
    auto span =
        telemetry::tracer::start_root(config_.tracer, "sandbox.start", telemetry::span_kind::internal, std::nullopt);
    span.set("harness.sandbox.language", std::string(sandbox::language_name(config_.language)));
    auto started = co_await start_unspanned();
    if (!started) span.fail(started.error().code.wire_name());
    co_return started;
  }

  asio::awaitable<result<sandbox_lease>> start_unspanned() {
    sandbox_lease lease;
    lease.tracer = config_.tracer;
    std::unique_ptr<bridge::call_socket> socket;
    std::string socket_path;
    if (!config_.call_socket_dir.empty()) {
      // Before the container: the engine mounts the socket file when it starts it.
      auto made = bridge::call_socket::listen(executor_, clock_, config_.call_socket_dir, sandbox::call_socket_mount);
      if (made) {
        socket = std::move(*made);
        socket_path = socket->path();
      } else {
        // A sandbox on stdio still works, only slower: better than none.
        ++link_failures_;
        core::log_warn("sandbox call socket: {}; this sandbox stays on stdio", made.error().describe());
      }
    }
    auto container = co_await backend_->start(pool_task, std::move(socket_path), config_.language);
    if (!container) co_return container.error();
    lease.container = std::move(*container);
    lease.channel = create_attach_frame_channel(lease.container->stream(), lease.container->id().substr(0, 12));
    auto ready = co_await bridge::wait_for_ready(clock_, *lease.channel, config_.ready_timeout);
    if (!ready) {
      if (died_before_ready(ready.error())) ++died_before_ready_;
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
        auto primed = co_await bridge::prime_runtime(clock_, *lease.channel, std::move(shared), config_.ready_timeout);
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

  void wake_soon() {
    if (replacement_pending_) return;
    replacement_pending_ = true;
    replacement_timer_->expires_at(clock_.steady_now() + replacement_delay);
    replacement_timer_->async_wait([weak = weak_from_this()](bool) {
      auto self = weak.lock();
      if (!self) return;
      self->replacement_pending_ = false;
      self->wake_.notify_all();
    });
  }

  void note_wait(core::steady_time asked) {
    claim_waits_.push_back(std::chrono::duration_cast<std::chrono::microseconds>(clock_.steady_now() - asked));
    if (claim_waits_.size() > claim_waits_kept) claim_waits_.pop_front();
  }

  // Keeps ready + starting at the sizer's target, with at most its number of
  // starts at once; sheds what is over the target once claims have stopped
  // for a while. Wakes on a claim, a start that ended, shutdown, or each second.
  static asio::awaitable<void> refill_loop(std::shared_ptr<warm_pool_impl> self) {
    while (!self->stopping_) {
      const auto now = self->clock_.steady_now();
      const std::size_t target = self->sizer_.target(now);
      if (self->ready_.size() > target && self->sizer_.quiet_for(now, shed_after)) {
        auto extra = std::move(self->ready_.front());
        self->ready_.pop_front();
        extra.channel.reset();
        extra.stdio.reset();
        core::spawn_logged(self->executor_, stop_extra(std::move(extra.container)), "warm pool: shedding a sandbox");
        continue;
      }
      // retry_at_ is read again for each start: a start may fail before the
      // spawn returns (it runs at once up to its first wait), and its backoff
      // must hold off the next one.
      while (!self->stopping_ && self->clock_.steady_now() >= self->retry_at_ &&
             self->ready_.size() + self->starting_.count() < target &&
             self->starting_.count() < self->sizer_.parallel()) {
        self->starting_.add();
        core::spawn_logged(self->executor_, start_and_keep(self), "warm pool: starting a sandbox");
      }
      co_await self->wake_.wait_until(detail::refill_wake(now, self->retry_at_));
    }
  }

  static asio::awaitable<void> stop_extra(std::unique_ptr<sandbox::sandbox_container> container) {
    co_await container->stop();
  }

  // One start of the refill: the sandbox joins the pool, or the failure
  // delays the next starts (doubling, up to 30 s, reset by a success).
  static asio::awaitable<void> start_and_keep(std::shared_ptr<warm_pool_impl> self) {
    struct done_on_exit {
      warm_pool_impl& pool;
      ~done_on_exit() {
        pool.starting_.done();
        pool.wake_.notify_all();
      }
    } done{*self};
    const auto began = self->clock_.steady_now();
    auto lease = co_await self->start_one();
    if (lease && self->stopping_) {
      lease->channel.reset();
      lease->stdio.reset();
      co_await lease->container->stop();
      co_return;
    }
    if (lease) {
      self->sizer_.started(self->clock_.steady_now() - began);
      self->ready_.push_back(std::move(*lease));
      self->backoff_ = 500ms;
      co_return;
    }
    if (self->stopping_) co_return;
    ++self->failed_starts_;
    self->sizer_.start_failed();
    core::log_warn("warm pool: could not start a sandbox ({}); retrying in {} ms", lease.error().describe(),
                   self->backoff_.count());
    self->retry_at_ = self->clock_.steady_now() + self->backoff_;
    self->backoff_ = std::min<std::chrono::milliseconds>(self->backoff_ * 2, 30s);
  }

  asio::any_io_executor executor_;
  core::clock& clock_;
  std::shared_ptr<sandbox::sandbox_backend> backend_;
  pool_config config_;
  core::async_signal wake_;                         // a claim took a sandbox, or shutdown began
  std::unique_ptr<core::timer> replacement_timer_;  // wake_soon()
  bool replacement_pending_ = false;
  std::deque<sandbox_lease> ready_;
  core::async_counter starting_;  // starts in flight; shutdown waits for them
  detail::pool_sizer sizer_;
  std::deque<std::chrono::microseconds> claim_waits_;  // the last claims'
  std::chrono::milliseconds backoff_{500};             // before the next start after a failure
  core::steady_time retry_at_{};                       // no start before this (after a failure)
  std::uint64_t warm_claims_ = 0, cold_claims_ = 0, failed_starts_ = 0, linked_ = 0, link_failures_ = 0;
  std::uint64_t died_before_ready_ = 0;
  bool stopping_ = false;
};

class pool_health_source final : public core::health_source {
 public:
  pool_health_source(std::shared_ptr<warm_pool> pool, std::string name)
      : pool_(std::move(pool)), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  core::component_health check() const override {
    auto s = pool_->stats();
    return {true,
            false,
            {{"target", s.target},
             {"min", s.min},
             {"max", s.max},
             {"ready", s.ready},
             {"starting", s.starting},
             {"parallelStarts", s.parallel},
             {"claimsPerSecond", std::round(s.claims_per_second * 100) / 100},
             {"startMs", s.start_time.count()},
             {"claimWaitMs", {{"p50", s.claim_wait_p50.count() / 1000.0}, {"p99", s.claim_wait_p99.count() / 1000.0}}},
             {"warmClaims", s.warm_claims},
             {"coldClaims", s.cold_claims},
             {"failedStarts", s.failed_starts},
             {"diedBeforeReady", s.died_before_ready},
             {"linked", s.linked},
             {"linkFailures", s.link_failures}}};
  }

 private:
  std::shared_ptr<warm_pool> pool_;
  std::string name_;
};

// The pools' stats as one: counts and gauges summed, wait quantiles the highest.
pool_stats combined(const std::vector<std::weak_ptr<warm_pool>>& pools) {
  pool_stats out;
  for (const auto& weak : pools) {
    auto pool = weak.lock();
    if (!pool) continue;
    const auto s = pool->stats();
    out.target += s.target;
    out.ready += s.ready;
    out.starting += s.starting;
    out.claim_wait_p50 = std::max(out.claim_wait_p50, s.claim_wait_p50);
    out.claim_wait_p99 = std::max(out.claim_wait_p99, s.claim_wait_p99);
    out.warm_claims += s.warm_claims;
    out.cold_claims += s.cold_claims;
    out.failed_starts += s.failed_starts;
    out.died_before_ready += s.died_before_ready;
    out.linked += s.linked;
    out.link_failures += s.link_failures;
  }
  return out;
}

}  // namespace

std::shared_ptr<warm_pool> create_warm_pool(const asio::any_io_executor& executor, core::clock& clock,
                                            std::shared_ptr<sandbox::sandbox_backend> backend, pool_config config) {
  return std::make_shared<warm_pool_impl>(executor, clock, std::move(backend), config);
}

std::shared_ptr<core::health_source> pool_health(std::shared_ptr<warm_pool> pool, std::string name) {
  return std::make_shared<pool_health_source>(std::move(pool), std::move(name));
}

void register_pool_metrics(core::metrics_registry& registry, const std::vector<std::shared_ptr<warm_pool>>& pools) {
  using core::sample;
  std::vector<std::weak_ptr<warm_pool>> weak(pools.begin(), pools.end());
  auto read = [weak](auto pick) { return [weak, pick] { return pick(combined(weak)); }; };
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
                        "Sandboxes the warm pool tries to keep ready now (between SANDBOX_POOL_SIZE and "
                        "SANDBOX_POOL_MAX, by recent demand).",
                        core::metric_type::gauge, {}, read([](const pool_stats& s) {
                          return std::vector<sample>{{{}, double(s.target)}};
                        }));
  registry.add_callback("harness_sandbox_pool_starting", "Pool sandboxes being started now.", core::metric_type::gauge,
                        {}, read([](const pool_stats& s) {
                          return std::vector<sample>{{{}, double(s.starting)}};
                        }));
  registry.add_callback("harness_sandbox_claim_wait_seconds",
                        "How long the last claims (up to 200) waited for their sandbox, by quantile.",
                        core::metric_type::gauge, {"quantile"}, read([](const pool_stats& s) {
                          return std::vector<sample>{
                              {{"0.5"}, std::chrono::duration<double>(s.claim_wait_p50).count()},
                              {{"0.99"}, std::chrono::duration<double>(s.claim_wait_p99).count()}};
                        }));
  registry.add_callback("harness_sandbox_start_failures_total", "Pool sandboxes that failed to start.",
                        core::metric_type::counter, {}, read([](const pool_stats& s) {
                          return std::vector<sample>{{{}, double(s.failed_starts)}};
                        }));
  registry.add_callback("harness_sandbox_died_before_ready_total",
                        "Sandbox runtimes that ended before they were ready; a claim that met one started another.",
                        core::metric_type::counter, {}, read([](const pool_stats& s) {
                          return std::vector<sample>{{{}, double(s.died_before_ready)}};
                        }));
  registry.add_callback(
      "harness_sandbox_links_total",
      "Sandboxes started with a call socket: linked to it, or left on stdio (slower; the log says why).",
      core::metric_type::counter, {"result"}, read([](const pool_stats& s) {
        return std::vector<sample>{{{"linked"}, double(s.linked)}, {{"stdio"}, double(s.link_failures)}};
      }));
}

}  // namespace harness::execution
