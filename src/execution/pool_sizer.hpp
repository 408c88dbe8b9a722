// How many sandboxes the warm pool keeps ready, and how many it starts at
// once. Pure bookkeeping (the times come from the caller), so a test can
// drive it with any clock.
//
// - Target: enough to absorb the claims that arrive while a replacement
//   starts (Little's law: claims per second x seconds per start, plus one),
//   between the minimum and the maximum. The rate is the higher of the whole
//   window's and its last third's, so a rising demand counts at once and a
//   falling one is forgotten when it leaves the window.
// - Parallel starts: additive increase, multiplicative decrease on the
//   engine's latency. A start that took more than twice the fastest one seen
//   lately halves the starts in flight (the engine is saturated: more at once
//   would only slow each); each start that did not raises it by one, up to
//   the maximum.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>

#include "harness/core/clock.hpp"

namespace harness::execution::detail {

class pool_sizer {
 public:
  using time_point = core::steady_time;
  using duration = core::steady_time::duration;

  struct limits {
    std::size_t min_ready = 2;
    std::size_t max_ready = 8;
    std::size_t max_parallel = 2;
    std::chrono::seconds window{30};
  };

  explicit pool_sizer(limits l);

  // A task took a sandbox (from the pool or cold).
  void claimed(time_point now);
  // A start finished; `took`: from create to ready.
  void started(duration took);
  // A start failed: fewer at once until one works.
  void start_failed();

  std::size_t target(time_point now) const;
  std::size_t parallel() const { return parallel_; }
  // Claims per second over the window, and the mean start time (its EWMA).
  double claims_per_second(time_point now) const;
  std::chrono::milliseconds start_time() const;
  // Whether no claim came for `quiet` (the pool may shed what it holds over the target).
  bool quiet_for(time_point now, duration quiet) const;

 private:
  void forget_before(time_point cutoff) const;

  limits limits_;
  mutable std::deque<time_point> claims_;  // within the window
  double start_seconds_ = 1.0;             // EWMA; 1 s until a start was measured
  bool measured_ = false;
  duration fastest_{};  // the fastest start lately (drifts up slowly)
  std::size_t parallel_;
};

// When the refill loop looks again without being woken: in a second, or at
// the end of a failure's back-off when that comes first. A back-off already
// over must not make the wait zero (the loop would spin on the CPU).
pool_sizer::time_point refill_wake(pool_sizer::time_point now, pool_sizer::time_point retry_at);

}  // namespace harness::execution::detail
