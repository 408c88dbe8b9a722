#include "harness/core/pausable_deadline.hpp"

namespace harness::core {

pausable_deadline::pausable_deadline(const boost::asio::any_io_executor& executor, clock& clock)
    : clock_(clock), timer_(clock.make_timer(executor)) {}

pausable_deadline::~pausable_deadline() {
  stop();
}

void pausable_deadline::start(steady_time expiry, std::function<void()> on_expiry,
                              std::function<void(duration)> on_shift) {
  stop();
  running_ = true;
  expiry_ = expiry;
  on_expiry_ = std::move(on_expiry);
  on_shift_ = std::move(on_shift);
  arm();
}

void pausable_deadline::reset(steady_time expiry) {
  if (!running_) return;
  expiry_ = expiry;
  if (holds_ == 0) arm();
}

void pausable_deadline::stop() {
  ++state_->generation;
  timer_->cancel();
  running_ = false;
  holds_ = 0;
  on_expiry_ = nullptr;
  on_shift_ = nullptr;
}

void pausable_deadline::arm() {
  const auto generation = ++state_->generation;
  timer_->expires_at(expiry_);
  // The handler reaches this object only while its wait is the current one:
  // stop() (and the destructor) and every hold or re-arm move the generation on.
  timer_->async_wait([this, state = state_, generation](bool expired) {
    if (!expired || state->generation != generation) return;
    running_ = false;
    auto fire = std::move(on_expiry_);
    on_shift_ = nullptr;
    if (fire) fire();
  });
}

void pausable_deadline::hold() {
  if (!running_ || holds_++ > 0) return;
  held_since_ = clock_.steady_now();
  ++state_->generation;  // whatever completion is queued is now stale
  timer_->cancel();
}

void pausable_deadline::release() {
  if (!running_ || holds_ == 0 || --holds_ > 0) return;
  const auto held = clock_.steady_now() - held_since_;
  expiry_ += held;
  if (on_shift_) on_shift_(held);
  arm();
}

}  // namespace harness::core
