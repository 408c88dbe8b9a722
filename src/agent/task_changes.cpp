#include "task_changes.hpp"

namespace harness::agent {

namespace asio = boost::asio;

asio::awaitable<bool> change_waiter::wait(std::chrono::milliseconds limit) {
  bool quiet = false;
  if (!pending_) {
    timer_->expires_at(clock_.steady_now() + limit);
    quiet = co_await timer_->wait();
  }
  // A wake that came after the timer fired (too late to cancel it) still counts.
  const bool woken = pending_;
  pending_ = false;
  co_return quiet && !woken;
}

void change_waiter::wake() {
  pending_ = true;
  timer_->cancel();
}

std::shared_ptr<change_waiter> task_changes::follow(const std::string& task_id) {
  // Waiters of streams that ended go here, so the map holds only live ones and a few dropped since.
  std::erase_if(waiters_, [](const auto& entry) { return entry.second.expired(); });
  auto waiter = std::make_shared<change_waiter>(executor_, clock_);
  waiters_.emplace(task_id, waiter);
  return waiter;
}

void task_changes::changed(const std::string& task_id) {
  auto wake = [](const auto& entry) {
    if (auto waiter = entry.second.lock()) waiter->wake();
  };
  if (task_id.empty()) {
    for (const auto& entry : waiters_) wake(entry);
    return;
  }
  auto [first, last] = waiters_.equal_range(task_id);
  for (auto it = first; it != last; ++it) wake(*it);
}

}  // namespace harness::agent
