// The deadline of the block a session runs, which an approval can stop: at
// the expiry `on_expiry` runs once (it cancels the channel, so the block's
// read ends), unless the deadline is held then; while held nothing expires,
// and the last release moves the expiry on by the time held. One per
// session, started for each block and stopped at its end. Single-threaded,
// on the session's executor.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

namespace harness::bridge {

class block_deadline {
 public:
  using clock_type = std::chrono::steady_clock;
  explicit block_deadline(const boost::asio::any_io_executor& executor) : timer_(executor) {}
  ~block_deadline() { stop(); }
  block_deadline(const block_deadline&) = delete;
  block_deadline& operator=(const block_deadline&) = delete;

  // `on_shift(by)` runs at each release that moved the expiry (the calls'
  // own limit moves with it).
  void start(clock_type::time_point expiry, std::function<void()> on_expiry,
             std::function<void(clock_type::duration)> on_shift);
  // Disarms it: neither callback runs again, and holds are forgotten.
  void stop();

  void hold();
  void release();

  bool running() const { return running_; }
  bool held() const { return running_ && holds_ > 0; }
  clock_type::time_point expiry() const { return expiry_; }

 private:
  void arm();

  // Shared with the timer's handler: a completion already queued when the
  // deadline is held, re-armed, stopped or destroyed finds out it is stale.
  struct state {
    unsigned long generation = 0;
  };
  std::shared_ptr<state> state_ = std::make_shared<state>();
  boost::asio::steady_timer timer_;
  bool running_ = false;
  clock_type::time_point expiry_{};
  std::function<void()> on_expiry_;
  std::function<void(clock_type::duration)> on_shift_;
  int holds_ = 0;
  clock_type::time_point held_since_{};
};

}  // namespace harness::bridge
