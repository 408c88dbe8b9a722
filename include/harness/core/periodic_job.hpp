// A component's background job that runs every so often (sweeping idle
// sessions, refreshing health, replica upkeep): the one way to write such a
// loop. stop() ends it the same way for every job, which shutdown relies on.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "harness/core/clock.hpp"

namespace harness::core {

// Single-threaded: start() and stop() on the executor it runs on. The clock
// must outlive the job's loop (it measures the intervals).
class periodic_job {
 public:
  using tick_fn = std::function<boost::asio::awaitable<void>()>;
  // When the first tick runs: one interval after start(), or at once (a
  // check whose answer is wanted now, a sweep of what piled up while down).
  enum class first_tick { after_interval, at_once };

  // `name` goes into the log line of a tick that throws.
  periodic_job(boost::asio::any_io_executor executor, clock& clock, std::string name);
  ~periodic_job();  // stop()
  periodic_job(const periodic_job&) = delete;
  periodic_job& operator=(const periodic_job&) = delete;

  // Runs `tick` (see first_tick), then `interval` after each tick ends,
  // until stop(); ticks never overlap. A tick that throws is logged and the
  // next one still runs. `tick` is released when the loop ends, so it may
  // hold the component. Starting a started job restarts it.
  void start(std::chrono::milliseconds interval, tick_fn tick, first_tick first = first_tick::after_interval);

  // No tick starts after this; one that is running ends on its own. Safe to call more than once.
  void stop();

  bool running() const;

  // A tick that is plain code, not a coroutine.
  template <class F>
  static tick_fn plain(F f) {
    return [f = std::move(f)]() mutable -> boost::asio::awaitable<void> {
      f();
      co_return;
    };
  }

 private:
  struct state;
  static boost::asio::awaitable<void> run_loop(std::shared_ptr<state> s, clock& clock, std::string name,
                                               first_tick first);
  boost::asio::any_io_executor executor_;
  clock& clock_;
  std::string name_;
  std::shared_ptr<state> state_;  // of the running loop; null before start()
};

}  // namespace harness::core
