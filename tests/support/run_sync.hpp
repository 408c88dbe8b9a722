// Runs one coroutine to completion on a fresh io_context: tests call the
// asynchronous API as if it were synchronous.
#pragma once

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

}  // namespace harness::testing
