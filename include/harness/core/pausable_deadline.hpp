// A deadline that can be held: while someone waits for a person (an approval,
// an elicitation) nothing expires, and the last release moves the expiry on
// by the time held. At the expiry `on_expiry` runs once; it makes the work
// end (cancels a channel, stops a task, wakes a waiter). The one copy of that
// shape: a block's deadline, a task's and an MCP request's use it.
// Single-threaded, on the executor it was made for.
#pragma once

#include <functional>
#include <memory>

#include <boost/asio/any_io_executor.hpp>

#include "harness/core/clock.hpp"

namespace harness::core {

class pausable_deadline {
 public:
  using duration = steady_time::duration;

  // The clock must outlive it.
  pausable_deadline(const boost::asio::any_io_executor& executor, clock& clock);
  ~pausable_deadline();  // stop()
  pausable_deadline(const pausable_deadline&) = delete;
  pausable_deadline& operator=(const pausable_deadline&) = delete;

  // Arms it for `expiry`, forgetting any earlier start and holds.
  // `on_shift(by)` runs at each release that moved the expiry (a second
  // limit kept beside this one moves with it).
  void start(steady_time expiry, std::function<void()> on_expiry, std::function<void(duration)> on_shift = {});
  // Moves the expiry of a running deadline (a sign of progress); while held,
  // the new expiry is moved on by the rest of the hold as well.
  void reset(steady_time expiry);
  // Disarms it: neither callback runs again, and holds are forgotten.
  void stop();

  // Holds nest: the expiry moves on once the last hold is released.
  void hold();
  void release();

  bool running() const { return running_; }
  bool held() const { return running_ && holds_ > 0; }
  steady_time expiry() const { return expiry_; }

 private:
  void arm();

  // Shared with the timer's handler: a completion already queued when the
  // deadline is held, re-armed, stopped or destroyed finds out it is stale.
  struct state {
    unsigned long generation = 0;
  };
  clock& clock_;
  std::shared_ptr<state> state_ = std::make_shared<state>();
  std::unique_ptr<timer> timer_;
  bool running_ = false;
  steady_time expiry_{};
  std::function<void()> on_expiry_;
  std::function<void(duration)> on_shift_;
  int holds_ = 0;
  steady_time held_since_{};
};

}  // namespace harness::core
