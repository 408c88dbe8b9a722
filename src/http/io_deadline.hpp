// A deadline for socket operations that, unlike beast::tcp_stream's timeout,
// cancels the pending operation without closing the socket, so the server can
// still answer 408 to a client that was too slow.
#pragma once

#include <chrono>
#include <memory>

#include <boost/asio/ip/tcp.hpp>

#include "harness/core/clock.hpp"

namespace harness::http {

// A connection arms and disarms its deadline around every read and write,
// several times per request, and nearly always disarms it long before it
// runs out. So arm() and disarm() only note the deadline; the timer is not
// restarted each time (a cancelled wait is a completion through the
// scheduler, three per request). The timer waits, and when it wakes it
// compares with the deadline noted then: passed, the socket's operations are
// cancelled; later, it sleeps again until then; none, it stops. It is moved
// earlier only when a deadline comes that is sooner than its wake-up time.
// One thread uses an io_deadline: the thread that runs the socket's executor.
class io_deadline {
 public:
  using time_point = core::steady_time;

  // `clock` must outlive it.
  io_deadline(boost::asio::ip::tcp::socket& socket, core::clock& clock)
      : state_(std::make_shared<state>(socket, clock)) {}
  ~io_deadline() { state_->timer->cancel(); }
  io_deadline(const io_deadline&) = delete;
  io_deadline& operator=(const io_deadline&) = delete;

  // Starts (or restarts) the clock; when it runs out, pending operations on
  // the socket complete with operation_aborted and expired() turns true.
  void arm(time_point::duration timeout) {
    auto& s = *state_;
    s.expired = false;
    s.deadline = s.clock.steady_now() + timeout;
    if (!s.waiting || s.deadline < s.wakes_at) wait_until(state_, s.deadline);
  }

  // No deadline until the next arm(); what the timer does meanwhile is no
  // one's business (it wakes, finds none, and stops).
  void disarm() { state_->deadline = time_point::max(); }

  bool expired() const { return state_->expired; }

 private:
  struct state {
    state(boost::asio::ip::tcp::socket& s, core::clock& c)
        : socket(s), clock(c), timer(c.make_timer(s.get_executor())) {}
    boost::asio::ip::tcp::socket& socket;
    core::clock& clock;
    std::unique_ptr<core::timer> timer;
    time_point deadline = time_point::max();  // max(): disarmed
    time_point wakes_at;                      // of the current wait, while waiting
    bool waiting = false;
    bool expired = false;
    unsigned long wait_number = 0;  // which wait the timer's completion belongs to
  };

  // (Re)starts the timer's wait. A wait it replaces completes later with
  // operation_aborted, or already completed and is queued: its number tells
  // it apart, so it neither expires nor starts another wait.
  static void wait_until(const std::shared_ptr<state>& s, time_point when) {
    s->waiting = true;
    s->wakes_at = when;
    s->timer->expires_at(when);
    s->timer->async_wait([weak = std::weak_ptr<state>(s), number = ++s->wait_number](bool expired) {
      auto locked = weak.lock();
      if (expired && locked && locked->wait_number == number) wake(locked);
    });
  }

  static void wake(const std::shared_ptr<state>& s) {
    s->waiting = false;
    if (s->deadline == time_point::max()) return;
    // The deadline moved later while the timer slept: sleep until then.
    if (s->clock.steady_now() < s->deadline) return wait_until(s, s->deadline);
    s->expired = true;
    boost::system::error_code ignored;
    s->socket.cancel(ignored);
  }

  std::shared_ptr<state> state_;
};

}  // namespace harness::http
