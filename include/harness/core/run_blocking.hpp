// Runs blocking work (files, disk) off the I/O thread and resumes the caller
// on its own executor with the result. The one place that works around GCC
// 12's coroutine bug: a coroutine lambda passed as a temporary inside a
// co_await expression is destroyed twice, so it is always a named local here.
#pragma once

#include <type_traits>
#include <utility>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace harness::core {

// `work()` on `pool`; with a null `pool`, inline (tests, and components given
// no thread pool). An exception from `work` reaches the caller. `work` may
// return void.
template <class F>
boost::asio::awaitable<std::invoke_result_t<F>> run_blocking(boost::asio::any_io_executor pool, F work) {
  using value = std::invoke_result_t<F>;
  if constexpr (std::is_void_v<value>) {
    if (!pool) {
      work();
      co_return;
    }
    auto run = [work = std::move(work)]() mutable -> boost::asio::awaitable<void> {
      work();
      co_return;
    };
    co_await boost::asio::co_spawn(pool, std::move(run), boost::asio::use_awaitable);
  } else {
    if (!pool) co_return work();
    auto run = [work = std::move(work)]() mutable -> boost::asio::awaitable<value> { co_return work(); };
    auto out = co_await boost::asio::co_spawn(pool, std::move(run), boost::asio::use_awaitable);
    co_return out;
  }
}

}  // namespace harness::core
