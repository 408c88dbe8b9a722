// Waits for several operations of one type that run side by side (MCP
// servers starting, sessions closing), the way a loop of co_awaits would but
// concurrently.
#pragma once

#include <exception>
#include <optional>
#include <utility>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/core/with_deadline.hpp"  // detail::into_optional

namespace harness::core {

// Runs every operation concurrently on the caller's executor and returns
// once all have ended, their values in the order of `ops` (not the order they
// finished in). An exception does not cancel the others: once all have
// ended, the exception of the first operation (in the order of `ops`) that
// threw reaches the caller. No operations: returns at once.
template <class T>
boost::asio::awaitable<std::vector<T>> when_all(std::vector<boost::asio::awaitable<T>> ops) {
  namespace asio = boost::asio;
  std::vector<T> out;
  if (ops.empty()) co_return out;
  auto executor = co_await asio::this_coro::executor;
  using spawned = decltype(asio::co_spawn(executor, detail::into_optional(std::move(ops.front())), asio::deferred));
  std::vector<spawned> started;
  started.reserve(ops.size());
  for (auto& op : ops) {
    auto wrapped = detail::into_optional(std::move(op));
    started.push_back(asio::co_spawn(executor, std::move(wrapped), asio::deferred));
  }
  auto group = asio::experimental::make_parallel_group(std::move(started));
  auto [order, failures, values] =
      co_await std::move(group).async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
  (void)order;
  for (auto& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
  out.reserve(values.size());
  for (auto& value : values) out.push_back(std::move(*value));
  co_return out;
}

// As above for operations without a value.
inline boost::asio::awaitable<void> when_all(std::vector<boost::asio::awaitable<void>> ops) {
  namespace asio = boost::asio;
  if (ops.empty()) co_return;
  auto executor = co_await asio::this_coro::executor;
  using spawned = decltype(asio::co_spawn(executor, std::move(ops.front()), asio::deferred));
  std::vector<spawned> started;
  started.reserve(ops.size());
  for (auto& op : ops) started.push_back(asio::co_spawn(executor, std::move(op), asio::deferred));
  auto group = asio::experimental::make_parallel_group(std::move(started));
  auto [order, failures] =
      co_await std::move(group).async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
  (void)order;
  for (auto& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
}

// Empties `table` (a map of sessions) and closes every value concurrently
// with close(value): the shutdown of a session table. Pass `close` as a
// function pointer or a named object, never a lambda temporary (GCC 12, see
// run_blocking.hpp).
template <class Map, class Close>
boost::asio::awaitable<void> close_all(Map& table, Close close) {
  auto all = std::move(table);
  table.clear();
  std::vector<boost::asio::awaitable<void>> closing;
  closing.reserve(all.size());
  for (auto& entry : all) closing.push_back(close(std::move(entry.second)));
  co_await when_all(std::move(closing));
}

}  // namespace harness::core
