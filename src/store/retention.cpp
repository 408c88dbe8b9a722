#include "harness/store/retention.hpp"

#include <algorithm>

#include "harness/core/clock.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/periodic_job.hpp"
#include "harness/store/task_store.hpp"

namespace harness::store {

std::function<void()> start_retention(const boost::asio::any_io_executor& executor, core::clock& clock,
                                      std::shared_ptr<task_store> store, const store_config& config,
                                      nlohmann::json empty_vault) {
  namespace asio = boost::asio;
  if (config.retention.count() == 0 && config.vault_retention.count() == 0) return {};
  // Vaults are checked more often when their retention is short.
  const auto every = std::clamp<std::chrono::minutes>(
      config.vault_retention.count() ? config.vault_retention / 4 : std::chrono::minutes(60), std::chrono::minutes(1),
      std::chrono::minutes(60));
  auto round = [store, config, empty_vault, &clock]() -> asio::awaitable<void> {
    {
      auto now = clock.epoch_ms();
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
    }
  };
  auto job = std::make_shared<core::periodic_job>(executor, clock, "task retention");
  job->start(every, std::move(round), core::periodic_job::first_tick::at_once);
  return [job] { job->stop(); };
}

}  // namespace harness::store
