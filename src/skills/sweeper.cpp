#include <atomic>

#include <boost/asio/dispatch.hpp>

#include "harness/core/logging.hpp"
#include "harness/core/periodic_job.hpp"
#include "harness/core/run_blocking.hpp"
#include "harness/skills/workspace_store.hpp"

namespace harness::skills {
namespace {

namespace asio = boost::asio;

class sweeper_impl final : public sweeper {
 public:
  sweeper_impl(std::shared_ptr<workspace_store> store, core::clock& clock, const asio::any_io_executor& timer_executor,
               asio::any_io_executor blocking, std::chrono::seconds interval, std::chrono::seconds retention)
      : executor_(timer_executor),
        job_(std::make_shared<core::periodic_job>(timer_executor, clock, "workspace sweeper")) {
    // The filesystem walk runs on the worker; the job waits for it, so sweeps
    // never overlap. The first runs at once: a server that was down for a day
    // has old workspaces to clear before the first interval passes.
    auto sweep_once = [store = std::move(store), blocking = std::move(blocking), retention,
                       &clock]() -> asio::awaitable<void> {
      const auto now = clock.system_now();
      auto sweep = [&store, retention, now] {
        try {
          store->sweep(retention, now);
        } catch (const std::exception& e) {
          core::log_error("workspace sweep failed: {}", e.what());
        }
      };
      co_await core::run_blocking(blocking, sweep);
    };
    job_->start(interval, std::move(sweep_once), core::periodic_job::first_tick::at_once);
  }
  ~sweeper_impl() override { stop(); }

  void stop() override {
    if (stopped_.exchange(true)) return;
    // The job belongs to its executor's thread: stop it there, at once when
    // called on that thread (server shutdown).
    asio::dispatch(executor_, [job = job_] { job->stop(); });
  }

 private:
  asio::any_io_executor executor_;
  std::shared_ptr<core::periodic_job> job_;
  std::atomic<bool> stopped_{false};
};

}  // namespace

std::unique_ptr<sweeper> start_sweeper(std::shared_ptr<workspace_store> store, core::clock& clock,
                                       const asio::any_io_executor& timer_executor,
                                       const asio::any_io_executor& blocking_executor, std::chrono::seconds interval,
                                       std::chrono::seconds retention) {
  return std::make_unique<sweeper_impl>(std::move(store), clock, timer_executor, blocking_executor, interval,
                                        retention);
}

}  // namespace harness::skills
