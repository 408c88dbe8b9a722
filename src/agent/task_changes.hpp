// Wakes what follows a task that runs on another replica (its event streams)
// when the shared store reports a change of that task (task_store::watch_changes).
// Used on the manager's executor only: the store's own thread posts to it.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "harness/core/clock.hpp"

namespace harness::agent {

// One follower's wake-up: a change that arrives while nobody waits is kept
// for the next wait, so none is lost between two reads of the store.
class change_waiter {
 public:
  change_waiter(const boost::asio::any_io_executor& executor, core::clock& clock)
      : clock_(clock), timer_(clock.make_timer(executor)) {}
  // Returns at the first change since the last wait (false), or after `limit`
  // on the clock without one (true).
  boost::asio::awaitable<bool> wait(std::chrono::milliseconds limit);
  void wake();

 private:
  core::clock& clock_;
  std::unique_ptr<core::timer> timer_;
  bool pending_ = false;
};

class task_changes {
 public:
  // `clock` must outlive this and every waiter.
  task_changes(boost::asio::any_io_executor executor, core::clock& clock)
      : executor_(std::move(executor)), clock_(clock) {}
  // A waiter woken by every change of `task_id`; it stops being woken when dropped.
  std::shared_ptr<change_waiter> follow(const std::string& task_id);
  // `task_id` changed; "" = any task may have (the store's listener reconnected).
  void changed(const std::string& task_id);

 private:
  boost::asio::any_io_executor executor_;
  core::clock& clock_;
  std::multimap<std::string, std::weak_ptr<change_waiter>> waiters_;
};

}  // namespace harness::agent
