#include "harness/auth/rate_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace harness::auth {

rate_limiter::rate_limiter(rate_limit limit, core::clock& clock, std::size_t max_buckets)
    : limit_(limit), clock_(clock), max_buckets_(std::max<std::size_t>(max_buckets, 1)) {
  limit_.burst = std::max(limit_.burst, 1.0);
}

void rate_limiter::refill(bucket& b, std::chrono::steady_clock::time_point now) const {
  if (now <= b.updated) return;
  double seconds = std::chrono::duration<double>(now - b.updated).count();
  b.tokens = std::min(limit_.burst, b.tokens + seconds * limit_.per_minute / 60.0);
  b.updated = now;
}

void rate_limiter::evict(std::chrono::steady_clock::time_point now) {
  // A full bucket behaves exactly like a missing one, so dropping it changes nothing.
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    refill(it->second, now);
    it = it->second.tokens >= limit_.burst ? buckets_.erase(it) : std::next(it);
  }
  // Still over the bound (many keys busy at once): drop the least recently
  // used; it starts full next time, which errs on the side of the caller.
  while (buckets_.size() >= max_buckets_) {
    auto oldest = std::min_element(buckets_.begin(), buckets_.end(), [](const auto& a, const auto& b) {
      return a.second.last_used < b.second.last_used;
    });
    buckets_.erase(oldest);
  }
}

rate_decision rate_limiter::acquire(std::string_view key_id) {
  if (limit_.per_minute <= 0) return {};
  std::lock_guard lock(mutex_);
  auto now = clock_.steady_now();
  auto it = buckets_.find(std::string(key_id));
  if (it == buckets_.end()) {
    if (buckets_.size() >= max_buckets_) evict(now);
    it = buckets_.emplace(std::string(key_id), bucket{limit_.burst, now, now}).first;
  }
  bucket& b = it->second;
  refill(b, now);
  b.last_used = now;
  if (b.tokens >= 1.0) {
    b.tokens -= 1.0;
    return {};
  }
  double wait = (1.0 - b.tokens) * 60.0 / limit_.per_minute;
  auto seconds = static_cast<std::int64_t>(std::ceil(wait - 1e-9));
  return {false, std::chrono::seconds(std::max<std::int64_t>(seconds, 1))};
}

std::size_t rate_limiter::bucket_count() const {
  std::lock_guard lock(mutex_);
  return buckets_.size();
}

}  // namespace harness::auth
