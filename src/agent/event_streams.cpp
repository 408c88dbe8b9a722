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

class stored_stream final : public task_event_stream {
 public:
  stored_stream(std::shared_ptr<store::task_store> store, std::string task_id, std::int64_t after)
      : store_(std::move(store)), task_id_(std::move(task_id)), last_(after) {}

  asio::awaitable<std::optional<store::event_record>> next(std::chrono::milliseconds) override {
    if (buffer_.empty() && !done_) {
      auto batch = co_await store_->events(task_id_, last_, batch_size);
      if (!batch) {
        core::log_warn("events of task {} not read: {}", task_id_, batch.error().describe());
        done_ = true;
      } else {
        if (batch->size() < batch_size) done_ = true;
        buffer_.insert(buffer_.end(), batch->begin(), batch->end());
      }
    }
    if (buffer_.empty()) co_return std::nullopt;
    auto event = std::move(buffer_.front());
    buffer_.pop_front();
    last_ = event.seq;
    co_return event;
  }

 private:
  std::shared_ptr<store::task_store> store_;
  std::string task_id_;
  std::int64_t last_;
  std::deque<store::event_record> buffer_;
  bool done_ = false;
};

}  // namespace

std::shared_ptr<task_event_stream> live_event_stream(std::shared_ptr<live_task> task, std::int64_t after_seq) {
  return std::make_shared<live_stream>(std::move(task), after_seq);
}

std::shared_ptr<task_event_stream> stored_event_stream(std::shared_ptr<store::task_store> store, std::string task_id,
                                                       std::int64_t after_seq) {
  return std::make_shared<stored_stream>(std::move(store), std::move(task_id), after_seq);
}

}  // namespace harness::agent
