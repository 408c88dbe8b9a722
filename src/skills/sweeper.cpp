#include <atomic>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/core/logging.hpp"
#include "harness/core/run_blocking.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/skills/workspace_store.hpp"

namespace harness::skills {
namespace {

namespace asio = boost::asio;

// Shared by the loop and the handle, so stop() is safe from any thread and
// after the loop has ended.
struct sweep_state {
  explicit sweep_state(const asio::any_io_executor& executor) : timer(executor) {}
  asio::steady_timer timer;
  std::atomic<bool> stopped{false};
};

asio::awaitable<void> sweep_loop(std::shared_ptr<sweep_state> state, std::shared_ptr<workspace_store> store,
                                 asio::any_io_executor blocking, std::chrono::seconds interval,
                                 std::chrono::seconds retention) {
  // The first sweep runs at once: a server that was down for a day has old
  // workspaces to clear before the first interval passes.
  while (!state->stopped) {
    // The filesystem walk runs on the worker; this coroutine resumes on the
    // timer's executor once it is done, so sweeps never overlap.
    auto sweep = [store, retention] {
      try {
        store->sweep(retention);
      } catch (const std::exception& e) {
        core::log_error("workspace sweep failed: {}", e.what());
      }
    };
    co_await core::run_blocking(blocking, sweep);
    if (state->stopped) break;
    state->timer.expires_after(interval);
    boost::system::error_code ec;
    co_await state->timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
  }
}

class sweeper_impl final : public sweeper {
 public:
  explicit sweeper_impl(std::shared_ptr<sweep_state> state) : state_(std::move(state)) {}
  ~sweeper_impl() override { stop(); }

  void stop() override {
    if (state_->stopped.exchange(true)) return;
    // The timer belongs to its executor's thread: cancel it there, at once when
    // called on that thread (server shutdown). The wait must end before the
    // io_context is destroyed: a frame destroyed with the context would destroy
    // the timer it owns while the context tears down that timer's queue.
    asio::dispatch(state_->timer.get_executor(), [state = state_] { state->timer.cancel(); });
  }

 private:
  std::shared_ptr<sweep_state> state_;
};

}  // namespace

std::unique_ptr<sweeper> start_sweeper(std::shared_ptr<workspace_store> store,
                                       const asio::any_io_executor& timer_executor,
                                       const asio::any_io_executor& blocking_executor, std::chrono::seconds interval,
                                       std::chrono::seconds retention) {
  auto state = std::make_shared<sweep_state>(timer_executor);
  core::spawn_logged(timer_executor, sweep_loop(state, std::move(store), blocking_executor, interval, retention),
                     "workspace sweeper");
  return std::make_unique<sweeper_impl>(std::move(state));
}

}  // namespace harness::skills
