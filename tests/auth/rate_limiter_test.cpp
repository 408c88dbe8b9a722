#include <gtest/gtest.h>

#include "harness/auth/rate_limiter.hpp"

namespace harness::auth {
namespace {

using namespace std::chrono_literals;

struct fake_clock {
  std::chrono::steady_clock::time_point now{};
  steady_now fn() {
    return [this] { return now; };
  }
};

TEST(RateLimiter, BurstThenRefusalWithRetryAfter) {
  fake_clock clock;
  rate_limiter limiter({.per_minute = 6, .burst = 3}, clock.fn());  // one token per 10 s
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.acquire("k").allowed) << i;
  auto refused = limiter.acquire("k");
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.retry_after, 10s);
  clock.now += 4s;
  EXPECT_EQ(limiter.acquire("k").retry_after, 6s);
  clock.now += 6s;
  EXPECT_TRUE(limiter.acquire("k").allowed);
  EXPECT_FALSE(limiter.acquire("k").allowed);
}

TEST(RateLimiter, RefillsUpToTheBurstOnly) {
  fake_clock clock;
  rate_limiter limiter({.per_minute = 60, .burst = 2}, clock.fn());
  EXPECT_TRUE(limiter.acquire("k").allowed);
  EXPECT_TRUE(limiter.acquire("k").allowed);
  EXPECT_FALSE(limiter.acquire("k").allowed);
  clock.now += 1h;
  EXPECT_TRUE(limiter.acquire("k").allowed);
  EXPECT_TRUE(limiter.acquire("k").allowed);
  EXPECT_FALSE(limiter.acquire("k").allowed);
}

TEST(RateLimiter, RetryAfterRoundsUpToWholeSeconds) {
  fake_clock clock;
  rate_limiter limiter({.per_minute = 40, .burst = 1}, clock.fn());  // one token per 1.5 s
  EXPECT_TRUE(limiter.acquire("k").allowed);
  EXPECT_EQ(limiter.acquire("k").retry_after, 2s);
  clock.now += 1200ms;
  EXPECT_EQ(limiter.acquire("k").retry_after, 1s);
}

TEST(RateLimiter, KeysHaveTheirOwnBuckets) {
  fake_clock clock;
  rate_limiter limiter({.per_minute = 1, .burst = 1}, clock.fn());
  EXPECT_TRUE(limiter.acquire("a").allowed);
  EXPECT_FALSE(limiter.acquire("a").allowed);
  EXPECT_TRUE(limiter.acquire("b").allowed);
}

TEST(RateLimiter, ZeroRateIsNoLimit) {
  fake_clock clock;
  rate_limiter limiter({.per_minute = 0, .burst = 1}, clock.fn());
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(limiter.acquire("k").allowed);
  EXPECT_EQ(limiter.bucket_count(), 0u);
}

TEST(RateLimiter, EvictsIdleBucketsFirstThenTheOldest) {
  fake_clock clock;
  rate_limiter limiter({.per_minute = 60, .burst = 2}, clock.fn(), 3);
  for (const char* k : {"a", "b", "c"}) limiter.acquire(k);
  EXPECT_EQ(limiter.bucket_count(), 3u);
  clock.now += 10s;  // a, b and c are full again: dropping them changes nothing
  limiter.acquire("d");
  EXPECT_EQ(limiter.bucket_count(), 1u);

  // All busy: the least recently used goes, the bound holds.
  for (const char* k : {"e", "f"}) {
    clock.now += 1ms;
    limiter.acquire(k);
    limiter.acquire(k);
  }
  clock.now += 1ms;
  limiter.acquire("d");
  limiter.acquire("g");
  EXPECT_LE(limiter.bucket_count(), 3u);
  // "e" was the oldest and was dropped, so it starts full again.
  EXPECT_TRUE(limiter.acquire("e").allowed);
}

}  // namespace
}  // namespace harness::auth
