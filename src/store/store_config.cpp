#include "harness/store/store_config.hpp"

namespace harness::store {

std::vector<core::setting_spec> store_setting_specs() {
  return {
      {"STORE_PATH", "data/harness.db",
       "SQLite file for tasks, events, conversations and usage (relative to the working directory; folders are "
       "created)"},
      {"TASK_RETENTION_HOURS", "0", "finished tasks and their events older than this are deleted (0 keeps them)"},
  };
}

result<store_config> load_store_config(const core::settings& s) {
  store_config out;
  const auto& path = s.get("STORE_PATH");
  if (path.empty() || path.back() == '/') {
    return make_error("invalid_setting", "invalid STORE_PATH: '" + path + "' does not name a file",
                      "set STORE_PATH to a file, e.g. data/harness.db");
  }
  auto hours = s.get_int("TASK_RETENTION_HOURS", 0, 24 * 365 * 100);
  if (!hours) return hours.error();
  out.path = path;
  out.retention = std::chrono::hours(*hours);
  return out;
}

std::optional<std::int64_t> retention_cutoff_ms(const store_config& config, std::int64_t now_ms) {
  if (config.retention.count() == 0) return std::nullopt;
  const auto keep_ms = std::chrono::duration_cast<std::chrono::milliseconds>(config.retention).count();
  return now_ms - keep_ms;
}

result<std::size_t> apply_retention(blocking_task_store& store, const store_config& config, std::int64_t now_ms) {
  auto cutoff = retention_cutoff_ms(config, now_ms);
  if (!cutoff) return std::size_t{0};
  return store.delete_finished_before(*cutoff);
}

}  // namespace harness::store
