// Settings of the task store: where the SQLite file lives and how long finished
// tasks are kept.
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
  // Finished tasks (and their events) older than this are deleted; 0 = keep forever.
  std::chrono::hours retention{0};
  // Conversation vaults (the raw PII values) unused this long are emptied; 0 = kept.
  std::chrono::minutes vault_retention{0};
};

// STORE_PATH, TASK_RETENTION_HOURS, VAULT_RETENTION.
std::vector<core::setting_spec> store_setting_specs();
// Errors "invalid_setting" naming the setting and the rule it broke.
result<store_config> load_store_config(const core::settings& settings);

// Where the retention of `config` cuts at now_ms: tasks that finished before
// it go (delete_finished_before). Empty when retention is 0 (keep everything).
std::optional<std::int64_t> retention_cutoff_ms(const store_config& config, std::int64_t now_ms);

// "0", or a number with a unit: "90m", "12h", "30d". Empty when malformed.
std::optional<std::chrono::minutes> parse_retention(std::string_view text);

// delete_finished_before(retention_cutoff_ms(...)) on a blocking backend.
// Returns how many tasks went; 0 without a call when retention is 0.
result<std::size_t> apply_retention(blocking_task_store& store, const store_config& config, std::int64_t now_ms);

}  // namespace harness::store
