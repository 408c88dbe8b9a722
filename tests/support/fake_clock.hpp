// A core::clock for tests: time stands still until the test calls advance(),
// which moves both clocks and wakes every timer whose expiry has come. Its
// timers wake their waiters through the executor they were made for, so the
// test runs that executor (io_context::poll) after advancing. Single-threaded,
// like the code it drives. The clock must outlive its timers.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/core/clock.hpp"

namespace harness::testing {

class fake_clock final : public core::clock {
 public:
  // Fixed starting points, so runs are alike: steady time 1 h after its epoch,
  // system time 2026-12-01T00:00:00Z.
  fake_clock() = default;

  core::steady_time steady_now() const override { return steady_; }
  core::system_time system_now() const override { return system_; }

  std::unique_ptr<core::timer> make_timer(const boost::asio::any_io_executor& executor) override {
    auto state = std::make_shared<timer_state>(executor);
    timers_.push_back(state);
    return std::make_unique<fake_timer>(*this, std::move(state));
  }

  // Moves time forward by `by` and wakes the timers whose expiry has come.
  void advance(std::chrono::nanoseconds by) {
    steady_ += std::chrono::duration_cast<core::steady_time::duration>(by);
    system_ += std::chrono::duration_cast<core::system_time::duration>(by);
    std::erase_if(timers_, [](const auto& weak) { return weak.expired(); });
    for (const auto& weak : timers_) {
      if (auto state = weak.lock(); state && state->waiting > 0 && state->at <= steady_) state->signal.cancel();
    }
  }

  // Timers with a wait in progress: lets a test see that the code it drives is now waiting.
  std::size_t waiting_timers() const {
    std::size_t n = 0;
    for (const auto& weak : timers_) {
      if (auto state = weak.lock()) n += state->waiting > 0 ? 1 : 0;
    }
    return n;
  }

  // The earliest expiry among timers with a wait in progress (max() when none).
  core::steady_time next_expiry() const {
    auto out = core::steady_time::max();
    for (const auto& weak : timers_) {
      if (auto state = weak.lock(); state && state->waiting > 0) out = std::min(out, state->at);
    }
    return out;
  }

 private:
  // Shared with the waiting coroutines, so a timer destroyed mid-wait leaves
  // them something valid to resume on.
  struct timer_state {
    explicit timer_state(const boost::asio::any_io_executor& executor)
        : signal(executor, boost::asio::steady_timer::time_point::max()) {}
    boost::asio::steady_timer signal;  // never expires: cancel() wakes the waiters
    core::steady_time at = core::steady_time::max();
    std::uint64_t generation = 0;  // bumped by expires_at() and cancel(): older waits end as cancelled
    int waiting = 0;
  };

  class fake_timer final : public core::timer {
   public:
    fake_timer(fake_clock& clock, std::shared_ptr<timer_state> state) : clock_(clock), state_(std::move(state)) {}
    ~fake_timer() override { cancel(); }

    void expires_at(core::steady_time at) override {
      state_->at = at;
      cancel();
    }
    void cancel() override {
      ++state_->generation;
      state_->signal.cancel();
    }
    boost::asio::awaitable<bool> wait() override { return wait_on(state_, clock_, state_->generation); }
    void async_wait(std::function<void(bool)> handler) override {
      auto waiting = wait_on(state_, clock_, state_->generation);
      boost::asio::co_spawn(
          state_->signal.get_executor(), std::move(waiting),
          [handler = std::move(handler)](std::exception_ptr failure, bool expired) { handler(!failure && expired); });
    }

   private:
    // Static, with its state as parameters: a wait started later (co_spawn)
    // needs no timer object, and a cancel() before it starts still ends it.
    static boost::asio::awaitable<bool> wait_on(std::shared_ptr<timer_state> state, const fake_clock& clock,
                                                std::uint64_t generation) {
      ++state->waiting;
      bool expired = false;
      for (;;) {
        if (state->generation != generation) break;
        if (clock.steady_now() >= state->at) {
          expired = true;
          break;
        }
        co_await state->signal.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
        // Cancelled through its slot (with_deadline's timer when the operation ended first).
        auto cancellation = co_await boost::asio::this_coro::cancellation_state;
        if (cancellation.cancelled() != boost::asio::cancellation_type::none) break;
      }
      --state->waiting;
      co_return expired;
    }

    fake_clock& clock_;
    std::shared_ptr<timer_state> state_;
  };

  core::steady_time steady_{std::chrono::hours(1)};
  core::system_time system_{std::chrono::seconds(1796083200)};  // 2026-12-01T00:00:00Z
  std::vector<std::weak_ptr<timer_state>> timers_;
};

}  // namespace harness::testing
