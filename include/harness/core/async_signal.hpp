// A condition variable for coroutines on one executor: notify_all() wakes
// every coroutine waiting at that moment; one that starts waiting later waits
// for the next notify. Wait in a loop on the condition itself
// (`while (!ready) co_await signal.wait();`). For "has X happened, ever",
// use async_event; for "until a count is back to zero", async_counter.
#pragma once

#include <chrono>
#include <list>
#include <memory>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "harness/core/clock.hpp"

namespace harness::core {

// Not thread-safe: use it on one executor. Must outlive its waiters. Its
// deadlines are points on `clock`, which must outlive it.
class async_signal {
 public:
  async_signal(boost::asio::any_io_executor executor, clock& clock) : executor_(std::move(executor)), clock_(clock) {}
  async_signal(const async_signal&) = delete;
  async_signal& operator=(const async_signal&) = delete;

  // Wakes every current waiter (they resume later, on the executor).
  void notify_all() {
    for (auto* w : waiters_) {
      w->notified = true;
      w->timer->cancel();
    }
  }

  // Returns after the next notify_all().
  boost::asio::awaitable<void> wait() { co_await wait_until(steady_time::max()); }

  // True after the next notify_all(); false when `deadline` passed first (or
  // the wait was cancelled through its cancellation slot).
  boost::asio::awaitable<bool> wait_until(steady_time deadline) {
    waiter self{clock_.make_timer(executor_)};
    self.timer->expires_at(deadline);
    auto it = waiters_.insert(waiters_.end(), &self);
    struct leave {
      std::list<waiter*>& list;
      std::list<waiter*>::iterator at;
      ~leave() { list.erase(at); }
    } on_exit{waiters_, it};
    const bool expired = co_await self.timer->wait();
    (void)expired;
    co_return self.notified;
  }

  // As wait_until, `timeout` from now.
  boost::asio::awaitable<bool> wait_for(steady_time::duration timeout) {
    auto out = co_await wait_until(clock_.steady_now() + timeout);
    co_return out;
  }

  std::size_t waiting() const { return waiters_.size(); }

 private:
  struct waiter {
    std::unique_ptr<core::timer> timer;  // never reaches its expiry when notified: notify_all() cancels it
    bool notified = false;
  };
  boost::asio::any_io_executor executor_;
  clock& clock_;
  std::list<waiter*> waiters_;
};

// Counts work in flight ("sessions open", "starts running") so that a
// shutdown can wait for the count to be zero instead of polling it.
// Not thread-safe: use it on one executor. Must outlive its waiters.
class async_counter {
 public:
  async_counter(boost::asio::any_io_executor executor, clock& clock) : zero_(std::move(executor), clock) {}

  void add(std::size_t n = 1) { count_ += n; }
  // One piece of work has ended; at zero, wait_zero() returns for every waiter.
  void done() {
    if (count_ > 0 && --count_ == 0) zero_.notify_all();
  }
  std::size_t count() const { return count_; }
  // Wakes the waiters of wait_change_until, so they look again at what else they wait for.
  void wake() { zero_.notify_all(); }

  // Returns once the count is zero (at once if it is).
  boost::asio::awaitable<void> wait_zero() {
    while (count_ > 0) co_await zero_.wait();
  }

  // Returns at zero, at the next wake() or done(), or at `deadline`: true when the count is zero.
  boost::asio::awaitable<bool> wait_change_until(steady_time deadline) {
    if (count_ == 0) co_return true;
    const bool notified = co_await zero_.wait_until(deadline);
    (void)notified;
    co_return count_ == 0;
  }

  // As wait_zero, but no later than `deadline`: true when the count is zero.
  boost::asio::awaitable<bool> wait_zero_until(steady_time deadline) {
    while (count_ > 0) {
      const bool notified = co_await zero_.wait_until(deadline);
      if (!notified) break;
    }
    co_return count_ == 0;
  }

 private:
  async_signal zero_;
  std::size_t count_ = 0;
};

}  // namespace harness::core
