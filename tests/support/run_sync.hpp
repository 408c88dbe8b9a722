// Runs one coroutine to completion on a fresh io_context: tests call the
// asynchronous API as if it were synchronous.
#pragma once

#include <chrono>
#include <future>
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

namespace harness::testing {

template <class T>
T run_sync(boost::asio::io_context& io, boost::asio::awaitable<T> work) {
  auto future = boost::asio::co_spawn(io, std::move(work), boost::asio::use_future);
  io.restart();
  io.run();
  return future.get();
}

// The same for an io_context that never runs out of work (a component with
// a background loop, such as an idle sweep): runs handlers only until `work`
// has finished.
template <class T>
T run_until_done(boost::asio::io_context& io, boost::asio::awaitable<T> work) {
  auto future = boost::asio::co_spawn(io, std::move(work), boost::asio::use_future);
  io.restart();
  while (future.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    if (io.run_one() == 0) break;  // nothing left to run: get() then reports why
  }
  return future.get();
}

}  // namespace harness::testing
