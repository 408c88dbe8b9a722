// How many one-shot sandboxes (POST /execute without a sessionId, which may
// each cold-start a container) one user and one API key may run at once. A
// request past its share waits a little for a slot to free, then is refused
// with too_many_running (429 with Retry-After). Sessions have caps of their
// own (max_sessions_per_user), counted where they are opened.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "harness/core/async_signal.hpp"
#include "harness/core/error.hpp"

namespace harness::execution {

struct run_slot_limits {
  std::size_t per_user = 4;              // SANDBOX_MAX_RUNNING_PER_USER
  std::size_t per_key = 8;               // SANDBOX_MAX_RUNNING_PER_KEY (callers with a key)
  std::chrono::milliseconds wait{2000};  // SANDBOX_RUN_QUEUE_MS: how long a request waits for a slot
};

// Not thread-safe: one executor (the I/O thread's). Must outlive its slots.
class run_slots {
 public:
  // Held while one sandbox runs; frees its place (and wakes a waiter) when destroyed.
  class slot {
   public:
    slot(run_slots& owner, std::string user, std::string key);
    ~slot();
    slot(const slot&) = delete;
    slot& operator=(const slot&) = delete;

   private:
    run_slots& owner_;
    std::string user_, key_;
  };

  // limits.wait is measured on `clock`, which must outlive this.
  run_slots(boost::asio::any_io_executor executor, core::clock& clock, run_slot_limits limits);

  // A slot for `user` (and `key`, when not empty: the open caller has none),
  // waiting up to limits.wait for one; too_many_running naming the setting
  // when none freed in time.
  boost::asio::awaitable<result<std::unique_ptr<slot>>> acquire(std::string user, std::string key);

  std::size_t running_of_user(const std::string& user) const;

 private:
  bool has_room(const std::string& user, const std::string& key) const;

  core::clock& clock_;
  run_slot_limits limits_;
  std::map<std::string, std::size_t> by_user_, by_key_;
  core::async_signal freed_;
};

}  // namespace harness::execution
