// Retention: finished tasks and unused conversation vaults are not kept for
// ever (TASK_RETENTION_HOURS, VAULT_RETENTION).
#pragma once

#include <functional>
#include <memory>

#include <boost/asio/any_io_executor.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/clock.hpp"
#include "harness/store/store_config.hpp"

namespace harness::store {

class task_store;

// Deletes finished tasks older than config.retention and sets the vaults of
// conversations unused for config.vault_retention to `empty_vault` (an empty
// vault's JSON, pii_vault().to_json(): the store does not read vaults), at
// start-up and then hourly (more often for a short vault retention): a
// periodic_job on `clock` and `executor`, the work on the store's own thread.
// Nothing (an empty function) when both are 0. The returned function stops
// it; call it on `executor`'s thread before the io_context goes away.
std::function<void()> start_retention(const boost::asio::any_io_executor& executor, core::clock& clock,
                                      std::shared_ptr<task_store> store, const store_config& config,
                                      nlohmann::json empty_vault);

}  // namespace harness::store
