#include "task_events.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace harness::agent {

namespace asio = boost::asio;

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

task_events::task_events(asio::any_io_executor executor, std::string task_id, sink persist)
    : executor_(std::move(executor)), task_id_(std::move(task_id)), persist_(std::move(persist)) {}

void task_events::append(std::string type, nlohmann::json data) {
  if (closed_) return;
  store::event_record event;
  event.task_id = task_id_;
  event.seq = static_cast<std::int64_t>(events_.size()) + 1;
  event.type = std::move(type);
  event.data = std::move(data);
  event.at_ms = now_ms();
  if (persist_) persist_(event);
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
  asio::steady_timer timer(executor_, wait);
  auto it = waiters_.insert(waiters_.end(), &timer);
  co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
  waiters_.erase(it);
}

}  // namespace harness::agent
