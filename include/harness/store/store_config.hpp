// Settings of the task store: which backend (a SQLite file, or a PostgreSQL
// database shared by replicas) and how long finished tasks are kept.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "harness/core/settings.hpp"
#include "harness/store/task_store.hpp"

namespace harness::store {

struct store_config {
  // The SQLite file; a relative path is relative to the working directory.
  std::filesystem::path path = "data/harness.db";
  // A PostgreSQL connection URI (postgresql://... or postgres://...): when set,
  // the store lives there and `path` is not used. Empty = SQLite at `path`.
  std::string url{};
  // Finished tasks (and their events) older than this are deleted; 0 = keep forever.
  std::chrono::hours retention{0};
  // Conversation vaults (the raw PII values) unused this long are emptied; 0 = kept.
  std::chrono::minutes vault_retention{0};
};

// STORE_PATH, STORE_URL, TASK_RETENTION_HOURS, VAULT_RETENTION.
std::vector<core::setting_spec> store_setting_specs();
// Errors "invalid_setting" naming the setting and the rule it broke.
result<store_config> load_store_config(const core::settings& settings);

// The backend `config` names, opened and migrated (blocks: start-up, tests):
// open_blocking_postgres_store(url) when url is set, else
// open_blocking_sqlite_store(path).
result<std::shared_ptr<blocking_task_store>> open_blocking_store(const store_config& config);
// For logs: the SQLite path, or the PostgreSQL URL without its password.
std::string describe_store(const store_config& config);

// Where the retention of `config` cuts at now_ms: tasks that finished before
// it go (delete_finished_before). Empty when retention is 0 (keep everything).
std::optional<std::int64_t> retention_cutoff_ms(const store_config& config, std::int64_t now_ms);

// "0", or a number with a unit: "90m", "12h", "30d". Empty when malformed.
std::optional<std::chrono::minutes> parse_retention(std::string_view text);

// delete_finished_before(retention_cutoff_ms(...)) on a blocking backend.
// Returns how many tasks went; 0 without a call when retention is 0.
result<std::size_t> apply_retention(blocking_task_store& store, const store_config& config, std::int64_t now_ms);

}  // namespace harness::store
