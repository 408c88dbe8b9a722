#include "pool_sizer.hpp"

#include <algorithm>
#include <cmath>

namespace harness::execution::detail {

pool_sizer::pool_sizer(limits l) : limits_(l), parallel_(std::max<std::size_t>(1, l.max_parallel)) {
  limits_.max_ready = std::max(limits_.max_ready, limits_.min_ready);
}

void pool_sizer::forget_before(time_point cutoff) const {
  while (!claims_.empty() && claims_.front() < cutoff) claims_.pop_front();
}

void pool_sizer::claimed(time_point now) {
  claims_.push_back(now);
  forget_before(now - limits_.window);
}

void pool_sizer::started(duration took) {
  const double seconds = std::chrono::duration<double>(took).count();
  start_seconds_ = measured_ ? 0.8 * start_seconds_ + 0.2 * seconds : seconds;
  if (!measured_ || took < fastest_) {
    fastest_ = took;
  } else {
    fastest_ += (took - fastest_) / 20;  // a slower engine becomes the new normal, slowly
  }
  measured_ = true;
  if (took > 2 * fastest_) {
    parallel_ = std::max<std::size_t>(1, parallel_ / 2);
  } else if (parallel_ < limits_.max_parallel) {
    ++parallel_;
  }
}

void pool_sizer::start_failed() {
  parallel_ = std::max<std::size_t>(1, parallel_ / 2);
}

double pool_sizer::claims_per_second(time_point now) const {
  forget_before(now - limits_.window);
  return static_cast<double>(claims_.size()) / std::chrono::duration<double>(limits_.window).count();
}

std::size_t pool_sizer::target(time_point now) const {
  const auto third = limits_.window / 3;
  forget_before(now - limits_.window);
  const auto recent = std::count_if(claims_.begin(), claims_.end(), [&](time_point t) { return t >= now - third; });
  const double rate =
      std::max(claims_per_second(now), static_cast<double>(recent) / std::chrono::duration<double>(third).count());
  if (rate == 0) return limits_.min_ready;
  const auto need = static_cast<std::size_t>(std::ceil(rate * start_seconds_)) + 1;
  return std::clamp(need, limits_.min_ready, limits_.max_ready);
}

std::chrono::milliseconds pool_sizer::start_time() const {
  return std::chrono::milliseconds(static_cast<std::int64_t>(start_seconds_ * 1000));
}

pool_sizer::time_point refill_wake(pool_sizer::time_point now, pool_sizer::time_point retry_at) {
  const auto in_a_second = now + std::chrono::seconds(1);
  return retry_at > now ? std::min(in_a_second, retry_at) : in_a_second;
}

bool pool_sizer::quiet_for(time_point now, duration quiet) const {
  return claims_.empty() || claims_.back() < now - quiet;
}

}  // namespace harness::execution::detail
