#include "task_events.hpp"

namespace harness::agent {

namespace asio = boost::asio;

task_events::task_events(asio::any_io_executor executor, core::clock& clock, std::string task_id, sink persist)
    : executor_(std::move(executor)), clock_(clock), task_id_(std::move(task_id)), persist_(std::move(persist)) {}

void task_events::append(std::string type, nlohmann::json data, nlohmann::json stored) {
  if (closed_) return;
  store::event_record event;
  event.task_id = task_id_;
  event.seq = static_cast<std::int64_t>(events_.size()) + 1;
  event.type = std::move(type);
  event.at_ms = clock_.epoch_ms();
  if (persist_ && !stored.is_null()) {
    event.data = std::move(stored);
    persist_(event);
  }
  event.data = std::move(data);
  if (persist_ && stored.is_null()) persist_(event);
  events_.push_back(std::move(event));
  notify();
}

void task_events::close() {
  closed_ = true;
  notify();
}

void task_events::notify() {
  for (auto* timer : waiters_) timer->cancel();
}

asio::awaitable<void> task_events::wait_change(std::chrono::milliseconds wait) {
  if (closed_) co_return;
  auto timer = clock_.make_timer(executor_);
  timer->expires_at(clock_.steady_now() + wait);
  auto it = waiters_.insert(waiters_.end(), timer.get());
  co_await timer->wait();
  waiters_.erase(it);
}

}  // namespace harness::agent
