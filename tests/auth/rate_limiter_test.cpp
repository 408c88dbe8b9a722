#include <gtest/gtest.h>

#include "harness/auth/rate_limiter.hpp"
#include "support/fake_clock.hpp"

namespace harness::auth {
namespace {

using namespace std::chrono_literals;

TEST(RateLimiter, BurstThenRefusalWithRetryAfter) {
  harness::testing::fake_clock clock;
  rate_limiter limiter({.per_minute = 6, .burst = 3}, clock);  // one token per 10 s
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.acquire("k").allowed) << i;
  auto refused = limiter.acquire("k");
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.retry_after, 10s);
  clock.advance(4s);
  EXPECT_EQ(limiter.acquire("k").retry_after, 6s);
  clock.advance(6s);
  EXPECT_TRUE(limiter.acquire("k").allowed);
  EXPECT_FALSE(limiter.acquire("k").allowed);
}

TEST(RateLimiter, RefillsUpToTheBurstOnly) {
  harness::testing::fake_clock clock;
  rate_limiter limiter({.per_minute = 60, .burst = 2}, clock);
  EXPECT_TRUE(limiter.acquire("k").allowed);
  EXPECT_TRUE(limiter.acquire("k").allowed);
  EXPECT_FALSE(limiter.acquire("k").allowed);
  clock.advance(1h);
  EXPECT_TRUE(limiter.acquire("k").allowed);
  EXPECT_TRUE(limiter.acquire("k").allowed);
  EXPECT_FALSE(limiter.acquire("k").allowed);
}

TEST(RateLimiter, RetryAfterRoundsUpToWholeSeconds) {
  harness::testing::fake_clock clock;
  rate_limiter limiter({.per_minute = 40, .burst = 1}, clock);  // one token per 1.5 s
  EXPECT_TRUE(limiter.acquire("k").allowed);
  EXPECT_EQ(limiter.acquire("k").retry_after, 2s);
  clock.advance(1200ms);
  EXPECT_EQ(limiter.acquire("k").retry_after, 1s);
}

TEST(RateLimiter, KeysHaveTheirOwnBuckets) {
  harness::testing::fake_clock clock;
  rate_limiter limiter({.per_minute = 1, .burst = 1}, clock);
  EXPECT_TRUE(limiter.acquire("a").allowed);
  EXPECT_FALSE(limiter.acquire("a").allowed);
  EXPECT_TRUE(limiter.acquire("b").allowed);
}

TEST(RateLimiter, ZeroRateIsNoLimit) {
  harness::testing::fake_clock clock;
  rate_limiter limiter({.per_minute = 0, .burst = 1}, clock);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(limiter.acquire("k").allowed);
  EXPECT_EQ(limiter.bucket_count(), 0u);
}

TEST(RateLimiter, EvictsIdleBucketsFirstThenTheOldest) {
  harness::testing::fake_clock clock;
  rate_limiter limiter({.per_minute = 60, .burst = 2}, clock, 3);
  for (const char* k : {"a", "b", "c"}) limiter.acquire(k);
  EXPECT_EQ(limiter.bucket_count(), 3u);
  clock.advance(10s);  // a, b and c are full again: dropping them changes nothing
  limiter.acquire("d");
  EXPECT_EQ(limiter.bucket_count(), 1u);

  // All busy: the least recently used goes, the bound holds.
  for (const char* k : {"e", "f"}) {
    clock.advance(1ms);
    limiter.acquire(k);
    limiter.acquire(k);
  }
  clock.advance(1ms);
  limiter.acquire("d");
  limiter.acquire("g");
  EXPECT_LE(limiter.bucket_count(), 3u);
  // "e" was the oldest and was dropped, so it starts full again.
  EXPECT_TRUE(limiter.acquire("e").allowed);
}

}  // namespace
}  // namespace harness::auth
