#include "harness/store/store_config.hpp"

#include "pg_conninfo.hpp"

namespace harness::store {
namespace {

bool is_postgres_url(std::string_view url) {
  return url.starts_with("postgresql://") || url.starts_with("postgres://");
}

}  // namespace

std::vector<core::setting_spec> store_setting_specs() {
  return {
      {"STORE_PATH", "data/harness.db",
       "SQLite file for tasks, events, conversations and usage (relative to the working directory; folders are "
       "created)"},
      {"STORE_URL", "",
       "PostgreSQL database for the store, shared by replicas: postgresql://user@host:5432/db (or postgres://...; "
       "libpq URI, ?sslmode=... and PGPASSWORD work); empty = the SQLite file STORE_PATH"},
      {"TASK_RETENTION_HOURS", "0", "finished tasks and their events older than this are deleted (0 keeps them)"},
      {"VAULT_RETENTION", "0",
       "a conversation's PII vault (the raw values behind its tokens) is emptied when the conversation is unused "
       "this long: 90m, 12h, 30d; 0 keeps them"},
  };
}

result<store_config> load_store_config(const core::settings& s) {
  store_config out;
  const auto& path = s.get("STORE_PATH");
  if (path.empty() || path.back() == '/') {
    return make_error(core::errc::invalid_setting, "invalid STORE_PATH: '" + path + "' does not name a file",
                      "set STORE_PATH to a file, e.g. data/harness.db");
  }
  auto hours = s.get_int("TASK_RETENTION_HOURS", 0, 24 * 365 * 100);
  if (!hours) return hours.error();
  out.path = path;
  out.url = s.get("STORE_URL");
  if (!out.url.empty() && !is_postgres_url(out.url)) {
    return make_error(core::errc::invalid_setting,
                      "invalid STORE_URL: '" + detail::redact_url(out.url) + "' is not a PostgreSQL URL",
                      "use postgresql://user@host:5432/database (or postgres://...), or leave STORE_URL empty for "
                      "the SQLite file at STORE_PATH");
  }
  out.retention = std::chrono::hours(*hours);
  auto vaults = parse_retention(s.get("VAULT_RETENTION"));
  if (!vaults) {
    return make_error(core::errc::invalid_setting,
                      "invalid VAULT_RETENTION: '" + s.get("VAULT_RETENTION") + "' is not a duration",
                      "use 0 (keep), or a number with m, h or d: 90m, 12h, 30d");
  }
  out.vault_retention = *vaults;
  return out;
}

result<std::shared_ptr<blocking_task_store>> open_blocking_store(const store_config& config) {
  if (!config.url.empty()) return open_blocking_postgres_store(config.url);
  return open_blocking_sqlite_store(config.path);
}

std::string describe_store(const store_config& config) {
  if (!config.url.empty()) return "postgresql " + detail::redact_url(config.url);
  return "sqlite " + config.path.string();
}

std::optional<std::chrono::minutes> parse_retention(std::string_view text) {
  if (text == "0") return std::chrono::minutes(0);
  if (text.size() < 2 || text.size() > 8) return std::nullopt;
  std::int64_t n = 0;
  for (char c : text.substr(0, text.size() - 1)) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (n == 0) return std::nullopt;
  switch (text.back()) {
    case 'm':
      return std::chrono::minutes(n);
    case 'h':
      return std::chrono::minutes(n * 60);
    case 'd':
      return std::chrono::minutes(n * 60 * 24);
    default:
      return std::nullopt;
  }
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
