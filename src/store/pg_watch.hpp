// Follows the changes other processes make to a shared PostgreSQL store: a
// connection of its own LISTENs on the harness_tasks channel (whose payload is
// the task id in hex, see pg_task_store.cpp), on a thread of its own that
// sleeps in poll() on the connection's socket and on an eventfd that wakes it
// for the destructor.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "harness/core/error.hpp"

namespace harness::store::detail {

inline constexpr const char* changes_channel = "harness_tasks";

class pg_watch {
 public:
  // Connects and LISTENs before it returns (so no change made afterwards is
  // missed), then calls on_change(task_id) on its thread for each
  // notification. A lost connection is re-established with backoff (up to 5 s
  // between tries), then on_change("") tells that changes may have been missed.
  // Errors: "store_open_failed" when the first connection fails.
  static result<std::unique_ptr<pg_watch>> start(const std::string& url,
                                                 std::function<void(const std::string&)> on_change);
  pg_watch(const pg_watch&) = delete;
  pg_watch& operator=(const pg_watch&) = delete;
  // Stops the thread (it wakes at once) and closes the connection.
  ~pg_watch();

  struct state;

 private:
  explicit pg_watch(std::unique_ptr<state> s);
  std::unique_ptr<state> state_;
};

}  // namespace harness::store::detail
