// The event log of one live task: numbered events kept in memory for the
// task's subscribers (SSE), each also handed to a sink that persists it.
// Single-threaded: everything runs on the agent's executor.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/clock.hpp"
#include "harness/store/task_store.hpp"

namespace harness::agent {

class task_events {
 public:
  using sink = std::function<void(const store::event_record&)>;

  // `clock` stamps the events and times the waits; it must outlive this.
  task_events(boost::asio::any_io_executor executor, core::clock& clock, std::string task_id, sink persist);

  // Records an event (seq = previous + 1) and wakes the waiters. With
  // `stored` (not null), the sink persists that data instead: the live
  // watchers see `data`, the store keeps `stored` (STORE_RESULTS=tokenized).
  void append(std::string type, nlohmann::json data, nlohmann::json stored = nullptr);

  // No more events will come; wakes the waiters.
  void close();
  bool closed() const { return closed_; }

  // Events with seq > after_seq (seq n is at index n - 1).
  const std::vector<store::event_record>& all() const { return events_; }

  // Returns when an event is appended, the log is closed, or `wait` passes.
  boost::asio::awaitable<void> wait_change(std::chrono::milliseconds wait);

 private:
  void notify();

  boost::asio::any_io_executor executor_;
  core::clock& clock_;
  std::string task_id_;
  sink persist_;
  std::vector<store::event_record> events_;
  std::list<core::timer*> waiters_;
  bool closed_ = false;
};

}  // namespace harness::agent
