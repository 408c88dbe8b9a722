// A token bucket per API key: RATE_LIMIT_PER_MINUTE tokens a minute, up to
// RATE_LIMIT_BURST at once. A request takes one token; with none left it is
// refused with the seconds until the next token (for Retry-After).
// Thread-safe; memory is bounded by max_buckets (idle buckets are evicted).
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "harness/core/clock.hpp"

namespace harness::auth {

struct rate_limit {
  double per_minute = 60;  // refill rate; 0 turns the limiter off
  double burst = 20;       // bucket size (>= 1); a new or idle key starts full
};

struct rate_decision {
  bool allowed = true;
  std::chrono::seconds retry_after{0};  // when refused: whole seconds, >= 1, rounded up
};

class rate_limiter {
 public:
  // `clock` must outlive the limiter.
  rate_limiter(rate_limit limit, core::clock& clock, std::size_t max_buckets = 10'000);

  // Takes a token from `key_id`'s bucket if there is one.
  rate_decision acquire(std::string_view key_id);

  // Buckets held now (for tests and metrics).
  std::size_t bucket_count() const;

 private:
  struct bucket {
    double tokens;
    std::chrono::steady_clock::time_point updated;    // tokens are counted up to here
    std::chrono::steady_clock::time_point last_used;  // last acquire, for eviction order
  };
  void refill(bucket& b, std::chrono::steady_clock::time_point now) const;
  void evict(std::chrono::steady_clock::time_point now);

  rate_limit limit_;
  core::clock& clock_;
  std::size_t max_buckets_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, bucket> buckets_;
};

}  // namespace harness::auth
