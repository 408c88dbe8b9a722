// periodic_job on the fake clock: ticks come when the clock says, stop() ends
// the loop, and a tick that throws does not end it.
#include "harness/core/periodic_job.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>

#include <boost/asio/io_context.hpp>

#include "support/fake_clock.hpp"

namespace harness::core {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

// Runs what is ready; restart() first, as an io_context that ran out of work stays stopped.
void settle(asio::io_context& io) {
  io.restart();
  io.poll();
}

TEST(PeriodicJob, TicksOncePerIntervalOfTheClock) {
  asio::io_context io;
  testing::fake_clock clock;
  periodic_job job(io.get_executor(), clock, "test job");
  int ticks = 0;
  job.start(10s, periodic_job::plain([&] { ++ticks; }));
  settle(io);
  EXPECT_EQ(ticks, 0);
  clock.advance(9s);
  settle(io);
  EXPECT_EQ(ticks, 0);
  clock.advance(1s);
  settle(io);
  EXPECT_EQ(ticks, 1);
  clock.advance(10s);
  settle(io);
  EXPECT_EQ(ticks, 2);
}

TEST(PeriodicJob, TheFirstTickMayRunAtOnce) {
  asio::io_context io;
  testing::fake_clock clock;
  periodic_job job(io.get_executor(), clock, "test job");
  int ticks = 0;
  job.start(10s, periodic_job::plain([&] { ++ticks; }), periodic_job::first_tick::at_once);
  settle(io);
  EXPECT_EQ(ticks, 1);
  clock.advance(10s);
  settle(io);
  EXPECT_EQ(ticks, 2);
}

TEST(PeriodicJob, StopEndsTheLoopAndLetsGoOfTheTick) {
  asio::io_context io;
  testing::fake_clock clock;
  periodic_job job(io.get_executor(), clock, "test job");
  auto held = std::make_shared<int>(0);
  job.start(1s, periodic_job::plain([held] { ++*held; }));
  settle(io);
  EXPECT_EQ(held.use_count(), 2);
  job.stop();
  EXPECT_FALSE(job.running());
  clock.advance(5s);
  io.restart();
  io.run();  // returns: nothing waits any more
  EXPECT_EQ(*held, 0);
  EXPECT_EQ(held.use_count(), 1);
}

TEST(PeriodicJob, ATickThatThrowsIsLoggedAndTheNextOneRuns) {
  asio::io_context io;
  testing::fake_clock clock;
  periodic_job job(io.get_executor(), clock, "test job");
  int ticks = 0;
  job.start(1s, [&]() -> asio::awaitable<void> {
    ++ticks;
    throw std::runtime_error("tick broke");
    co_return;
  });
  settle(io);
  clock.advance(1s);
  settle(io);
  clock.advance(1s);
  settle(io);
  EXPECT_EQ(ticks, 2);
}

TEST(PeriodicJob, DestroyingTheJobStopsIt) {
  asio::io_context io;
  testing::fake_clock clock;
  int ticks = 0;
  {
    periodic_job job(io.get_executor(), clock, "test job");
    job.start(1s, periodic_job::plain([&] { ++ticks; }));
    settle(io);
  }
  clock.advance(2s);
  io.restart();
  io.run();
  EXPECT_EQ(ticks, 0);
}

}  // namespace
}  // namespace harness::core
