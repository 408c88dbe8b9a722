// A one-shot event that coroutines wait for: once set(), every waiter, now
// or later, goes on. The one copy of the "timer that never expires, cancelled
// to wake its waiters" idiom. Use it on one executor (not thread-safe).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace harness::core {

class async_event {
 public:
  explicit async_event(const boost::asio::any_io_executor& executor)
      : timer_(executor, boost::asio::steady_timer::time_point::max()) {}

  void set() {
    set_ = true;
    timer_.cancel();
  }
  bool is_set() const { return set_; }

  // Returns once set() has been called (at once if it has been).
  boost::asio::awaitable<void> wait() {
    while (!set_) co_await timer_.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
  }

 private:
  boost::asio::steady_timer timer_;
  bool set_ = false;
};

}  // namespace harness::core
