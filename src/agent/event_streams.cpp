#include "event_streams.hpp"

#include <deque>

#include "harness/core/logging.hpp"

namespace harness::agent {
namespace {

namespace asio = boost::asio;

constexpr std::size_t batch_size = 500;  // events read from the store at a time

class live_stream final : public task_event_stream {
 public:
  live_stream(std::shared_ptr<live_task> task, std::int64_t after) : task_(std::move(task)), last_(after) {}

  asio::awaitable<std::optional<store::event_record>> next(std::chrono::milliseconds wait) override {
    for (bool waited = false;; waited = true) {
      const auto& all = task_->events.all();
      if (last_ < static_cast<std::int64_t>(all.size())) {
        auto event = all[static_cast<std::size_t>(std::max<std::int64_t>(last_, 0))];
        last_ = event.seq;
        co_return event;
      }
      if (task_->events.closed()) co_return std::nullopt;
      if (waited) co_return store::event_record{};  // keep-alive
      co_await task_->events.wait_change(wait);
    }
  }

 private:
  std::shared_ptr<live_task> task_;
  std::int64_t last_;
};

// The task's events from the store in batches. Without a waiter it ends at the
// last stored event (a finished task). With one (a task running on another
// replica) it goes on, waiting for the store's change notices in between (a
// lost notice costs one keep-alive interval), until it has delivered the
// task's "end" event. The owner stores the task's final status just before
// its last events, so a stream that finds the task ended reads on until
// "end" or until a whole interval passes without a change (a task marked
// interrupted for a lapsed lease has no "end").
class stored_stream final : public task_event_stream {
 public:
  stored_stream(std::shared_ptr<store::task_store> store, std::string task_id, std::int64_t after,
                std::shared_ptr<change_waiter> waiter)
      : store_(std::move(store)), task_id_(std::move(task_id)), last_(after), waiter_(std::move(waiter)) {}

  asio::awaitable<std::optional<store::event_record>> next(std::chrono::milliseconds wait) override {
    for (bool waited = false;; waited = true) {
      if (buffer_.empty() && !done_) co_await read_batch();
      if (!buffer_.empty()) {
        auto event = std::move(buffer_.front());
        buffer_.pop_front();
        last_ = event.seq;
        if (waiter_ && event.type == "end") done_ = true;
        co_return event;
      }
      if (!waiter_ || done_) co_return std::nullopt;
      if (!ended_) ended_ = co_await task_ended();
      if (waited && !ended_) co_return store::event_record{};  // keep-alive
      const bool quiet = co_await waiter_->wait(wait);
      if (ended_ && quiet) {
        // A last read, for events a lost notice did not announce.
        co_await read_batch();
        if (buffer_.empty()) co_return std::nullopt;
      }
    }
  }

 private:
  asio::awaitable<void> read_batch() {
    auto batch = co_await store_->events(task_id_, last_, batch_size);
    if (!batch) {
      core::log_warn("events of task {} not read: {}", task_id_, batch.error().describe());
      done_ = true;
      co_return;
    }
    // A finished task's stream ends at a short batch; a followed one reads again after the next change.
    if (!waiter_ && batch->size() < batch_size) done_ = true;
    buffer_.insert(buffer_.end(), batch->begin(), batch->end());
  }

  asio::awaitable<bool> task_ended() {
    auto task = co_await store_->get_task(task_id_);
    if (!task) core::log_warn("task {} not read: {}", task_id_, task.error().describe());
    co_return !task || !*task || store::is_terminal((*task)->status);
  }

  std::shared_ptr<store::task_store> store_;
  std::string task_id_;
  std::int64_t last_;
  std::shared_ptr<change_waiter> waiter_;
  std::deque<store::event_record> buffer_;
  bool done_ = false;   // no more reads: an error, the last batch (not followed), or "end" delivered
  bool ended_ = false;  // the followed task's stored status is final
};

}  // namespace

std::shared_ptr<task_event_stream> live_event_stream(std::shared_ptr<live_task> task, std::int64_t after_seq) {
  return std::make_shared<live_stream>(std::move(task), after_seq);
}

std::shared_ptr<task_event_stream> stored_event_stream(std::shared_ptr<store::task_store> store, std::string task_id,
                                                       std::int64_t after_seq, std::shared_ptr<change_waiter> follow) {
  return std::make_shared<stored_stream>(std::move(store), std::move(task_id), after_seq, std::move(follow));
}

}  // namespace harness::agent
