// Driving an io_context by hand in unit tests that run on the fake clock:
// run what is ready (time does not move), start a coroutine and run it as far
// as it goes, or run one that must end without time passing.
#pragma once

#include <chrono>
#include <future>

#include <gtest/gtest.h>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

namespace harness::testing {

// Runs every handler that is ready, until none is; time does not move.
inline void settle(boost::asio::io_context& io) {
  for (;;) {
    io.restart();
    if (io.poll() == 0) return;
  }
}

// Starts `work` and runs it as far as it goes without time passing.
template <class T>
std::future<T> spawn(boost::asio::io_context& io, boost::asio::awaitable<T> work) {
  auto future = boost::asio::co_spawn(io, std::move(work), boost::asio::use_future);
  settle(io);
  return future;
}

// Runs `work` to its end; it must not need time to pass.
template <class T>
T run_now(boost::asio::io_context& io, boost::asio::awaitable<T> work) {
  auto future = spawn(io, std::move(work));
  EXPECT_EQ(future.wait_for(std::chrono::seconds(0)), std::future_status::ready)
      << "the call waits for something that never comes";
  return future.get();
}

}  // namespace harness::testing
