// The warm pool's sizing policy on made-up times: the target follows the
// claims of the last 30 s between the minimum and the maximum, and the starts
// in flight follow the engine's latency.
#include <gtest/gtest.h>

#include "pool_sizer.hpp"

namespace harness::execution::detail {
namespace {

using namespace std::chrono_literals;
using time_point = pool_sizer::time_point;

const time_point t0 = time_point() + 1000s;

TEST(PoolSizer, WithoutClaimsTheTargetIsTheMinimum) {
  pool_sizer sizer({.min_ready = 2, .max_ready = 8, .max_parallel = 2});
  EXPECT_EQ(sizer.target(t0), 2u);
  EXPECT_EQ(sizer.parallel(), 2u);
  EXPECT_EQ(sizer.start_time(), 1000ms);  // assumed until a start is measured
}

TEST(PoolSizer, TheTargetCoversTheClaimsThatComeWhileAReplacementStarts) {
  pool_sizer sizer({.min_ready = 1, .max_ready = 8, .max_parallel = 2});
  sizer.started(500ms);
  // 20 claims in the last third of the window (10 s): 2 a second; during a
  // 0.5 s start, 1 arrives; one more for margin.
  for (int i = 0; i < 20; ++i) sizer.claimed(t0 + i * 250ms);
  EXPECT_EQ(sizer.target(t0 + 5s), 2u);
  // Ten a second for 10 s: 5 arrive during a start, plus one.
  for (int i = 0; i < 100; ++i) sizer.claimed(t0 + 5s + i * 100ms);
  EXPECT_EQ(sizer.target(t0 + 15s), 6u);
  // A hundred more in a second: the maximum caps it.
  for (int i = 0; i < 100; ++i) sizer.claimed(t0 + 15s + i * 10ms);
  EXPECT_EQ(sizer.target(t0 + 16s), 8u);
}

TEST(PoolSizer, DemandIsForgottenWhenItLeavesTheWindow) {
  pool_sizer sizer({.min_ready = 2, .max_ready = 8, .max_parallel = 2});
  sizer.started(1s);
  for (int i = 0; i < 30; ++i) sizer.claimed(t0 + i * 100ms);
  EXPECT_GT(sizer.target(t0 + 3s), 2u);
  EXPECT_FALSE(sizer.quiet_for(t0 + 5s, 10s));
  EXPECT_TRUE(sizer.quiet_for(t0 + 14s, 10s));
  EXPECT_EQ(sizer.target(t0 + 40s), 2u);
  EXPECT_EQ(sizer.claims_per_second(t0 + 40s), 0.0);
}

TEST(PoolSizer, ARisingDemandCountsBeforeTheWholeWindowSeesIt) {
  pool_sizer sizer({.min_ready = 1, .max_ready = 16, .max_parallel = 2});
  sizer.started(1s);
  // 20 claims in the last 2 s of the window: the last third's rate (2/s)
  // counts, not the window's (0.67/s).
  for (int i = 0; i < 20; ++i) sizer.claimed(t0 + 28s + i * 100ms);
  EXPECT_EQ(sizer.target(t0 + 30s), 3u);
}

TEST(PoolSizer, ASlowingEngineHalvesTheStartsInFlightAndARecoveryRaisesThemAgain) {
  pool_sizer sizer({.min_ready = 2, .max_ready = 8, .max_parallel = 4});
  EXPECT_EQ(sizer.parallel(), 4u);
  sizer.started(400ms);
  sizer.started(1200ms);  // three times the fastest: saturated
  EXPECT_EQ(sizer.parallel(), 2u);
  sizer.started(2000ms);
  EXPECT_EQ(sizer.parallel(), 1u);
  sizer.started(3000ms);
  EXPECT_EQ(sizer.parallel(), 1u);  // never below one
  sizer.started(450ms);
  sizer.started(420ms);
  EXPECT_EQ(sizer.parallel(), 3u);
  sizer.start_failed();
  EXPECT_EQ(sizer.parallel(), 1u);
}

TEST(PoolSizer, AMaximumBelowTheMinimumIsTheMinimum) {
  pool_sizer sizer({.min_ready = 4, .max_ready = 2, .max_parallel = 1});
  sizer.started(1s);
  for (int i = 0; i < 50; ++i) sizer.claimed(t0 + i * 100ms);
  EXPECT_EQ(sizer.target(t0 + 5s), 4u);
}

// The refill loop's wait is never zero: a back-off that is over (or none,
// the default time point) must not make it spin.
TEST(PoolSizer, TheRefillLoopWaitsASecondOrUntilTheBackOffEndsNeverZero) {
  EXPECT_EQ(refill_wake(t0, {}), t0 + 1s);             // no failure yet
  EXPECT_EQ(refill_wake(t0 + 10s, t0), t0 + 11s);      // a back-off long over
  EXPECT_EQ(refill_wake(t0, t0 + 300ms), t0 + 300ms);  // the back-off ends first
  EXPECT_EQ(refill_wake(t0, t0 + 5s), t0 + 1s);        // the second comes first
}

}  // namespace
}  // namespace harness::execution::detail
