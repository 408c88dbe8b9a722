// Time as a dependency. Components that measure or wait on time take a
// core::clock& instead of reading std::chrono clocks or arming raw
// steady_timers, so tests can drive them with a fake clock that only moves
// when the test says so (tests/support/fake_clock.hpp). real_clock() is the
// production one: std::chrono's clocks and Asio steady_timers. Outside
// core/, no code reads std::chrono's clocks or makes an Asio timer
// (scripts/check-clock.sh).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

namespace harness::core {

using steady_time = std::chrono::steady_clock::time_point;
using system_time = std::chrono::system_clock::time_point;

// A one-shot wait for a point in time, used on the executor it was made for
// (not thread-safe), like an Asio steady_timer.
class timer {
 public:
  virtual ~timer() = default;
  // Sets the expiry; a wait in progress ends as cancelled.
  virtual void expires_at(steady_time at) = 0;
  // Ends a wait in progress as cancelled; the expiry stays, so a later wait waits for it again.
  virtual void cancel() = 0;
  // True once the expiry has come (at once if it has); false when cancel()
  // or expires_at() ended the wait first.
  virtual boost::asio::awaitable<bool> wait() = 0;
  // The same wait for code that is not a coroutine: `handler(expired)` runs
  // once, on the timer's executor, with what wait() would have returned.
  virtual void async_wait(std::function<void(bool expired)> handler) = 0;
};

class clock {
 public:
  virtual ~clock() = default;
  // For intervals and deadlines.
  virtual steady_time steady_now() const = 0;
  // For timestamps shown to people and stored.
  virtual system_time system_now() const = 0;
  // A timer on this clock for coroutines on `executor`; it must not outlive the clock.
  virtual std::unique_ptr<timer> make_timer(const boost::asio::any_io_executor& executor) = 0;

  // system_now() as Unix epoch milliseconds.
  std::int64_t epoch_ms() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(system_now().time_since_epoch()).count();
  }
};

// Unix epoch milliseconds as ISO 8601 UTC with milliseconds: "2026-12-05T22:51:30.842Z".
std::string iso_utc(std::int64_t epoch_ms);

// std::chrono::steady_clock, std::chrono::system_clock and Asio steady_timers.
// Stateless; lives as long as the process. Only the start-up wiring names it;
// components get it (or a fake) through their constructor.
clock& real_clock();

}  // namespace harness::core
