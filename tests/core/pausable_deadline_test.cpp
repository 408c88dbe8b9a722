// pausable_deadline on the fake clock: it expires at its time, holds stop it,
// and the last release moves it on by the time held.
#include "harness/core/pausable_deadline.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include <boost/asio/io_context.hpp>

#include "support/fake_clock.hpp"

namespace harness::core {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

struct PausableDeadline : ::testing::Test {
  asio::io_context io;
  testing::fake_clock clock;
  pausable_deadline deadline{io.get_executor(), clock};
  int expired = 0;
  steady_time::duration shifted{0};

  void start(steady_time::duration in) {
    deadline.start(
        clock.steady_now() + in, [this] { ++expired; }, [this](steady_time::duration by) { shifted += by; });
    settle();
  }
  void advance(steady_time::duration by) {
    clock.advance(by);
    settle();
  }
  // Runs what is ready; restart() first, as an io_context that ran out of work stays stopped.
  void settle() {
    io.restart();
    io.poll();
  }
};

TEST_F(PausableDeadline, ExpiresOnceAtItsTime) {
  start(10s);
  advance(9s);
  EXPECT_EQ(expired, 0);
  advance(1s);
  EXPECT_EQ(expired, 1);
  EXPECT_FALSE(deadline.running());
  advance(1h);
  EXPECT_EQ(expired, 1);
}

TEST_F(PausableDeadline, AHoldStopsItAndTheReleaseMovesItOnByTheTimeHeld) {
  start(10s);
  advance(4s);
  deadline.hold();
  advance(1h);
  EXPECT_EQ(expired, 0);
  EXPECT_TRUE(deadline.held());
  deadline.release();
  EXPECT_EQ(shifted, 1h);
  advance(5s);
  EXPECT_EQ(expired, 0);
  advance(1s);
  EXPECT_EQ(expired, 1);
}

TEST_F(PausableDeadline, HoldsNest) {
  start(10s);
  deadline.hold();
  deadline.hold();
  advance(20s);
  deadline.release();
  EXPECT_TRUE(deadline.held());
  advance(20s);
  EXPECT_EQ(expired, 0);
  deadline.release();
  EXPECT_EQ(shifted, 40s);
  advance(10s);
  EXPECT_EQ(expired, 1);
}

TEST_F(PausableDeadline, StopDisarmsIt) {
  start(10s);
  deadline.stop();
  advance(1h);
  EXPECT_EQ(expired, 0);
  deadline.release();  // a release after stop() is nothing
  EXPECT_EQ(shifted, steady_time::duration{0});
}

TEST_F(PausableDeadline, ResetMovesARunningDeadline) {
  start(10s);
  advance(8s);
  deadline.reset(clock.steady_now() + 10s);
  advance(9s);
  EXPECT_EQ(expired, 0);
  advance(1s);
  EXPECT_EQ(expired, 1);
}

}  // namespace
}  // namespace harness::core
