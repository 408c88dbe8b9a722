#include "harness/store/retention.hpp"

#include <algorithm>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/core/clock.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/store/task_store.hpp"

namespace harness::store {

std::function<void()> start_retention(const boost::asio::any_io_executor& executor, std::shared_ptr<task_store> store,
                                      const store_config& config, nlohmann::json empty_vault) {
  namespace asio = boost::asio;
  if (config.retention.count() == 0 && config.vault_retention.count() == 0) return {};
  auto timer = std::make_shared<asio::steady_timer>(executor);
  // Vaults are checked more often when their retention is short.
  const auto every = std::clamp<std::chrono::minutes>(
      config.vault_retention.count() ? config.vault_retention / 4 : std::chrono::minutes(60), std::chrono::minutes(1),
      std::chrono::minutes(60));
  auto loop = [timer, store, config, every, empty_vault]() -> asio::awaitable<void> {
    for (;;) {
      auto now = core::real_clock().epoch_ms();
      if (auto cutoff = retention_cutoff_ms(config, now)) {
        auto removed = co_await store->delete_finished_before(*cutoff);
        if (!removed) core::log_warn("task retention failed: {}", removed.error().describe());
        if (removed && *removed > 0) core::log_info("task retention removed {} finished task(s)", *removed);
      }
      if (config.vault_retention.count() > 0) {
        const auto keep = std::chrono::duration_cast<std::chrono::milliseconds>(config.vault_retention).count();
        nlohmann::json empty = empty_vault;  // a local: GCC 12
        auto emptied = co_await store->forget_vaults_before(now - keep, std::move(empty));
        if (!emptied) core::log_warn("vault retention failed: {}", emptied.error().describe());
        if (emptied && *emptied > 0) core::log_info("vault retention emptied {} conversation vault(s)", *emptied);
      }
      timer->expires_after(every);
      auto [ec] = co_await timer->async_wait(asio::as_tuple(asio::use_awaitable));
      if (ec) co_return;
    }
  };
  core::spawn_logged(executor, std::move(loop), "task retention");
  return [timer] { timer->cancel(); };
}

}  // namespace harness::store
