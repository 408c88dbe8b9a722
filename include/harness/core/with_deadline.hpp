// Runs an operation under a deadline, the one way to write one here (Beast's
// `expires_after` and Asio's `cancel_after`, for any awaitable). The deadline
// is a point on the caller's core::clock, whose timer measures it. Two forms:
// - with_deadline(op, deadline): when the time passes first, `op` is
//   cancelled through its cancellation slot (terminal cancellation: a
//   socket, pipe, descriptor or timer wait it awaits ends with
//   operation_aborted, and its next co_await throws) and the caller gets
//   nullopt (false for void). Prefer it wherever the operation supports
//   per-operation cancellation.
// - with_deadline(op, deadline, on_expiry): at the deadline on_expiry() runs
//   (cancel the channel, close the client) and `op` ends on its own; the
//   caller gets its value and whether the deadline passed.
#pragma once

#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/core/clock.hpp"

namespace harness::core {

namespace detail {

template <class T>
boost::asio::awaitable<std::optional<T>> into_optional(boost::asio::awaitable<T> op) {
  co_return std::optional<T>(co_await std::move(op));
}

}  // namespace detail

// Runs `op` on the caller's executor until it ends or `deadline` passes.
// Returns its value, or nullopt when the deadline came first; an exception
// from `op` before the deadline reaches the caller. Returns only once `op` has
// ended: an operation that ignores cancellation holds the caller up, and what
// it returns after the deadline (a value or an exception) is dropped. A
// deadline already passed still starts `op` and cancels it at once.
template <class T>
boost::asio::awaitable<std::optional<T>> with_deadline(clock& clock, boost::asio::awaitable<T> op,
                                                       steady_time deadline) {
  namespace asio = boost::asio;
  auto executor = co_await asio::this_coro::executor;
  auto timer = clock.make_timer(executor);
  timer->expires_at(deadline);
  // Named locals, never temporaries in the co_await expression (GCC 12).
  auto wrapped = detail::into_optional(std::move(op));
  auto waiting = timer->wait();
  auto group = asio::experimental::make_parallel_group(asio::co_spawn(executor, std::move(wrapped), asio::deferred),
                                                       asio::co_spawn(executor, std::move(waiting), asio::deferred));
  auto [order, failure, value, timer_failure, expired] =
      co_await std::move(group).async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
  (void)timer_failure;
  (void)expired;
  if (order[0] == 1) co_return std::nullopt;
  if (failure) std::rethrow_exception(failure);
  co_return std::move(value);
}

// As above for an operation without a value: true when it ended in time.
inline boost::asio::awaitable<bool> with_deadline(clock& clock, boost::asio::awaitable<void> op, steady_time deadline) {
  namespace asio = boost::asio;
  auto executor = co_await asio::this_coro::executor;
  auto timer = clock.make_timer(executor);
  timer->expires_at(deadline);
  auto waiting = timer->wait();
  auto group = asio::experimental::make_parallel_group(asio::co_spawn(executor, std::move(op), asio::deferred),
                                                       asio::co_spawn(executor, std::move(waiting), asio::deferred));
  auto [order, failure, timer_failure, expired] =
      co_await std::move(group).async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
  (void)timer_failure;
  (void)expired;
  if (order[0] == 1) co_return false;
  if (failure) std::rethrow_exception(failure);
  co_return true;
}

// What an operation run under with_deadline(op, deadline, on_expiry) returned,
// and whether its deadline passed while it ran.
template <class T>
struct deadline_run {
  T value;
  bool expired = false;
};

namespace detail {

// Calls on_expiry() at the deadline unless disarmed first. The flag covers a
// timer completion already queued when the guard goes away: on_expiry may
// refer to the caller's frame, which is gone by then.
class expiry_guard {
 public:
  template <class F>
  expiry_guard(clock& clock, const boost::asio::any_io_executor& executor, steady_time deadline, F on_expiry)
      : timer_(clock.make_timer(executor)) {
    timer_->expires_at(deadline);
    timer_->async_wait([state = state_, on_expiry = std::move(on_expiry)](bool expired) mutable {
      if (!expired || !state->armed) return;
      state->expired = true;
      on_expiry();
    });
  }
  ~expiry_guard() {
    state_->armed = false;
    timer_->cancel();
  }
  expiry_guard(const expiry_guard&) = delete;
  expiry_guard& operator=(const expiry_guard&) = delete;
  bool expired() const { return state_->expired; }

 private:
  struct state {
    bool armed = true;
    bool expired = false;
  };
  std::shared_ptr<state> state_ = std::make_shared<state>();
  std::unique_ptr<timer> timer_;
};

}  // namespace detail

// For an operation whose cancellation belongs to its object rather than to
// the one call (frame_channel::cancel, closing an MCP client, cancelling a
// socket for several reads): at the deadline, `on_expiry()` is called once,
// on the caller's executor, and is expected to make `op` end soon. `op` is not
// cancelled through its slot and always runs to its end; its value comes
// back with `expired` telling whether the deadline passed meanwhile. An
// exception from `op` reaches the caller. `on_expiry` may refer to the
// caller's frame: it is never called once this returns.
template <class T, class F>
boost::asio::awaitable<deadline_run<T>> with_deadline(clock& clock, boost::asio::awaitable<T> op, steady_time deadline,
                                                      F on_expiry) {
  auto executor = co_await boost::asio::this_coro::executor;
  detail::expiry_guard guard(clock, executor, deadline, std::move(on_expiry));
  auto value = co_await std::move(op);
  deadline_run<T> out{std::move(value), guard.expired()};
  co_return out;
}

// As above for an operation without a value: true when the deadline passed.
template <class F>
boost::asio::awaitable<bool> with_deadline(clock& clock, boost::asio::awaitable<void> op, steady_time deadline,
                                           F on_expiry) {
  auto executor = co_await boost::asio::this_coro::executor;
  detail::expiry_guard guard(clock, executor, deadline, std::move(on_expiry));
  co_await std::move(op);
  co_return guard.expired();
}

// The deadline `timeout` from now.
template <class T, class Rep, class Period>
boost::asio::awaitable<std::optional<T>> with_deadline(clock& clock, boost::asio::awaitable<T> op,
                                                       std::chrono::duration<Rep, Period> timeout) {
  const auto deadline = clock.steady_now() + std::chrono::duration_cast<steady_time::duration>(timeout);
  auto out = co_await with_deadline(clock, std::move(op), deadline);
  co_return out;
}

template <class Rep, class Period>
boost::asio::awaitable<bool> with_deadline(clock& clock, boost::asio::awaitable<void> op,
                                           std::chrono::duration<Rep, Period> timeout) {
  const auto deadline = clock.steady_now() + std::chrono::duration_cast<steady_time::duration>(timeout);
  auto out = co_await with_deadline(clock, std::move(op), deadline);
  co_return out;
}

}  // namespace harness::core
