#include "harness/core/periodic_job.hpp"

#include <exception>

#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"

namespace harness::core {
namespace asio = boost::asio;

// Shared by the job and its loop: the loop may outlive the job by one
// wake-up, after which it finds `stopped` and ends.
struct periodic_job::state {
  std::unique_ptr<core::timer> timer;
  tick_fn tick;
  std::chrono::milliseconds interval{0};
  bool stopped = false;
};

periodic_job::periodic_job(asio::any_io_executor executor, clock& clock, std::string name)
    : executor_(std::move(executor)), clock_(clock), name_(std::move(name)) {}

periodic_job::~periodic_job() {
  stop();
}

void periodic_job::start(std::chrono::milliseconds interval, tick_fn tick, first_tick first) {
  stop();
  state_ = std::make_shared<state>();
  state_->timer = clock_.make_timer(executor_);
  state_->tick = std::move(tick);
  state_->interval = interval;
  core::spawn_logged(executor_, run_loop(state_, clock_, name_, first), name_);
}

void periodic_job::stop() {
  if (!state_) return;
  state_->stopped = true;
  state_->timer->cancel();
  state_.reset();
}

bool periodic_job::running() const {
  return state_ != nullptr;
}

asio::awaitable<void> periodic_job::run_loop(std::shared_ptr<state> s, clock& clock, std::string name,
                                             first_tick first) {
  bool wait = first == first_tick::after_interval;
  while (!s->stopped) {
    if (wait) {
      s->timer->expires_at(clock.steady_now() + s->interval);
      const bool expired = co_await s->timer->wait();
      if (!expired || s->stopped) break;
    }
    wait = true;
    std::exception_ptr failure;
    try {
      co_await s->tick();
    } catch (...) {
      failure = std::current_exception();
    }
    if (failure) log_spawn_exception(name, failure);
  }
  s->tick = nullptr;  // what it holds (often the component) is let go
}

}  // namespace harness::core
