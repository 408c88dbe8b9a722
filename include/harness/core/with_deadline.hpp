// Runs an operation under a deadline: when the time passes first, the
// operation is cancelled through its cancellation slot (terminal
// cancellation: a socket, pipe or timer wait it awaits ends with
// operation_aborted, and its next co_await throws) and the caller learns
// that it timed out. Beast's `expires_after` and Asio's `cancel_after`, for
// any awaitable.
#pragma once

#include <chrono>
#include <exception>
#include <optional>
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

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
boost::asio::awaitable<std::optional<T>> with_deadline(boost::asio::awaitable<T> op,
                                                       std::chrono::steady_clock::time_point deadline) {
  namespace asio = boost::asio;
  auto executor = co_await asio::this_coro::executor;
  asio::steady_timer timer(executor, deadline);
  // Named locals, never temporaries in the co_await expression (GCC 12).
  auto wrapped = detail::into_optional(std::move(op));
  auto group = asio::experimental::make_parallel_group(asio::co_spawn(executor, std::move(wrapped), asio::deferred),
                                                       timer.async_wait(asio::deferred));
  auto [order, failure, value, timer_ec] =
      co_await std::move(group).async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
  (void)timer_ec;
  if (order[0] == 1) co_return std::nullopt;
  if (failure) std::rethrow_exception(failure);
  co_return std::move(value);
}

// As above for an operation without a value: true when it ended in time.
inline boost::asio::awaitable<bool> with_deadline(boost::asio::awaitable<void> op,
                                                  std::chrono::steady_clock::time_point deadline) {
  namespace asio = boost::asio;
  auto executor = co_await asio::this_coro::executor;
  asio::steady_timer timer(executor, deadline);
  auto group = asio::experimental::make_parallel_group(asio::co_spawn(executor, std::move(op), asio::deferred),
                                                       timer.async_wait(asio::deferred));
  auto [order, failure, timer_ec] =
      co_await std::move(group).async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
  (void)timer_ec;
  if (order[0] == 1) co_return false;
  if (failure) std::rethrow_exception(failure);
  co_return true;
}

// The deadline `timeout` from now.
template <class T, class Rep, class Period>
boost::asio::awaitable<std::optional<T>> with_deadline(boost::asio::awaitable<T> op,
                                                       std::chrono::duration<Rep, Period> timeout) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout);
  auto out = co_await with_deadline(std::move(op), deadline);
  co_return out;
}

template <class Rep, class Period>
boost::asio::awaitable<bool> with_deadline(boost::asio::awaitable<void> op,
                                           std::chrono::duration<Rep, Period> timeout) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout);
  auto out = co_await with_deadline(std::move(op), deadline);
  co_return out;
}

}  // namespace harness::core
