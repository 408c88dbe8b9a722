// core::clock: the real one's timers, and the fake one tests drive by hand.
#include <future>

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include "harness/core/clock.hpp"
#include "support/fake_clock.hpp"

namespace harness::core {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

void settle(asio::io_context& io) {
  for (;;) {
    io.restart();
    if (io.poll() == 0) return;
  }
}

std::future<bool> wait_on(asio::io_context& io, timer& t) {
  auto future = asio::co_spawn(io, t.wait(), asio::use_future);
  settle(io);
  return future;
}

bool ready(std::future<bool>& f) {
  return f.wait_for(0s) == std::future_status::ready;
}

TEST(RealClock, ATimerWhoseTimeHasComeReturnsTrueAndACancelledOneFalse) {
  asio::io_context io;
  auto& clock = real_clock();
  auto past = clock.make_timer(io.get_executor());
  past->expires_at(clock.steady_now() - 1s);
  auto expired = wait_on(io, *past);
  ASSERT_TRUE(ready(expired));
  EXPECT_TRUE(expired.get());

  auto future = clock.make_timer(io.get_executor());
  future->expires_at(clock.steady_now() + 1h);
  auto waiting = wait_on(io, *future);
  EXPECT_FALSE(ready(waiting));
  future->cancel();
  settle(io);
  ASSERT_TRUE(ready(waiting));
  EXPECT_FALSE(waiting.get());
}

TEST(FakeClock, TimeMovesOnlyWhenAdvancedAndWakesTimersWhoseTimeCame) {
  asio::io_context io;
  testing::fake_clock clock;
  const auto start = clock.steady_now();
  const auto start_ms = clock.epoch_ms();
  auto t = clock.make_timer(io.get_executor());
  t->expires_at(start + 10s);
  auto w = wait_on(io, *t);
  EXPECT_EQ(clock.waiting_timers(), 1u);
  EXPECT_EQ(clock.next_expiry(), start + 10s);
  clock.advance(9999ms);
  settle(io);
  EXPECT_FALSE(ready(w));
  clock.advance(1ms);
  settle(io);
  ASSERT_TRUE(ready(w));
  EXPECT_TRUE(w.get());
  EXPECT_EQ(clock.steady_now(), start + 10s);
  EXPECT_EQ(clock.epoch_ms(), start_ms + 10000);
  EXPECT_EQ(clock.waiting_timers(), 0u);
}

TEST(FakeClock, CancelAndRearmEndTheWaitAsCancelledAndTheExpiryStays) {
  asio::io_context io;
  testing::fake_clock clock;
  auto t = clock.make_timer(io.get_executor());
  t->expires_at(clock.steady_now() + 5s);
  auto first = wait_on(io, *t);
  t->cancel();
  settle(io);
  ASSERT_TRUE(ready(first));
  EXPECT_FALSE(first.get());
  // A new wait waits for the same expiry.
  auto second = wait_on(io, *t);
  EXPECT_FALSE(ready(second));
  t->expires_at(clock.steady_now() + 1s);
  settle(io);
  ASSERT_TRUE(ready(second));
  EXPECT_FALSE(second.get());
  auto third = wait_on(io, *t);
  clock.advance(1s);
  settle(io);
  ASSERT_TRUE(ready(third));
  EXPECT_TRUE(third.get());
}

TEST(FakeClock, ATimerDestroyedMidWaitEndsItsWaitAsCancelled) {
  asio::io_context io;
  testing::fake_clock clock;
  auto t = clock.make_timer(io.get_executor());
  t->expires_at(clock.steady_now() + 5s);
  auto w = wait_on(io, *t);
  t.reset();
  settle(io);
  ASSERT_TRUE(ready(w));
  EXPECT_FALSE(w.get());
  clock.advance(10s);  // nothing left to wake
  settle(io);
  EXPECT_EQ(clock.waiting_timers(), 0u);
}

}  // namespace
}  // namespace harness::core
