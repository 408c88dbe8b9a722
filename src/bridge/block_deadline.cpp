#include "block_deadline.hpp"

namespace harness::bridge {

void block_deadline::start(clock_type::time_point expiry, std::function<void()> on_expiry,
                           std::function<void(clock_type::duration)> on_shift) {
  stop();
  running_ = true;
  expiry_ = expiry;
  on_expiry_ = std::move(on_expiry);
  on_shift_ = std::move(on_shift);
  arm();
}

void block_deadline::stop() {
  ++state_->generation;
  timer_.cancel();
  running_ = false;
  holds_ = 0;
  on_expiry_ = nullptr;
  on_shift_ = nullptr;
}

void block_deadline::arm() {
  const auto generation = ++state_->generation;
  timer_.expires_at(expiry_);
  // The handler reaches this object only while its wait is the current one:
  // stop() (and the destructor) and every hold or re-arm move the generation on.
  timer_.async_wait([this, state = state_, generation](boost::system::error_code ec) {
    if (ec || state->generation != generation) return;
    running_ = false;
    auto fire = std::move(on_expiry_);
    on_shift_ = nullptr;
    if (fire) fire();
  });
}

void block_deadline::hold() {
  if (!running_ || holds_++ > 0) return;
  held_since_ = clock_type::now();
  ++state_->generation;  // whatever completion is queued is now stale
  timer_.cancel();
}

void block_deadline::release() {
  if (!running_ || holds_ == 0 || --holds_ > 0) return;
  const auto held = clock_type::now() - held_since_;
  expiry_ += held;
  if (on_shift_) on_shift_(held);
  arm();
}

}  // namespace harness::bridge
