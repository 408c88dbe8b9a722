#include "pg_migrations.hpp"

#include <array>

#include <fmt/format.h>

#include "harness/store/errors.hpp"
#include "store_common.hpp"

namespace harness::store::detail {
namespace {

// The key of the advisory lock that serializes migrations ("hmig").
constexpr const char* lock_sql = "SELECT pg_advisory_lock(1752001895)";
constexpr const char* unlock_sql = "SELECT pg_advisory_unlock(1752001895)";

constexpr const char* v1_sql = R"sql(
CREATE TABLE tasks (
  id              bytea PRIMARY KEY,
  user_id         bytea NOT NULL,
  conversation_id bytea NOT NULL,
  task            bytea NOT NULL,
  mode            bytea NOT NULL,
  status          text NOT NULL,
  result          text NOT NULL DEFAULT 'null',
  error           text NOT NULL DEFAULT 'null',
  turns           bigint NOT NULL DEFAULT 0,
  input_tokens    bigint NOT NULL DEFAULT 0,
  output_tokens   bigint NOT NULL DEFAULT 0,
  created_ms      bigint NOT NULL,
  started_ms      bigint NOT NULL DEFAULT 0,
  finished_ms     bigint NOT NULL DEFAULT 0,
  transcript      text NOT NULL DEFAULT '[]'
);
CREATE INDEX tasks_by_user_created ON tasks (user_id, created_ms DESC, id DESC);
CREATE INDEX tasks_by_created ON tasks (created_ms DESC, id DESC);
CREATE TABLE events (
  task_id bytea NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  seq     bigint NOT NULL,
  type    bytea NOT NULL,
  data    text NOT NULL DEFAULT 'null',
  at_ms   bigint NOT NULL,
  PRIMARY KEY (task_id, seq)
);
CREATE TABLE conversations (
  id         bytea PRIMARY KEY,
  user_id    bytea NOT NULL,
  messages   text NOT NULL DEFAULT '[]',
  vault      text NOT NULL DEFAULT '{}',
  created_ms bigint NOT NULL,
  updated_ms bigint NOT NULL
);
)sql";

constexpr const char* v2_sql = R"sql(
CREATE TABLE usage (
  id            bigserial PRIMARY KEY,
  user_id       bytea NOT NULL,
  task_id       bytea NOT NULL,
  input_tokens  bigint NOT NULL,
  output_tokens bigint NOT NULL,
  at_ms         bigint NOT NULL
);
CREATE INDEX usage_by_user_at ON usage (user_id, at_ms);
CREATE INDEX usage_by_at ON usage (at_ms);
CREATE INDEX tasks_unfinished ON tasks (status) WHERE status IN ('queued', 'running');
CREATE INDEX tasks_by_finished ON tasks (finished_ms) WHERE finished_ms > 0;
)sql";

constexpr const char* v3_sql = R"sql(
ALTER TABLE tasks ADD COLUMN key_id bytea NOT NULL DEFAULT '';
)sql";

constexpr const char* v4_sql = R"sql(
DROP INDEX tasks_unfinished;
CREATE INDEX tasks_unfinished ON tasks (status) WHERE status IN ('queued', 'running', 'awaiting_approval');
)sql";

constexpr const char* v5_sql = R"sql(
ALTER TABLE tasks ADD COLUMN owner bytea NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN lease_until_ms bigint NOT NULL DEFAULT 0;
CREATE INDEX tasks_unfinished_by_user ON tasks (user_id) WHERE status IN ('queued', 'running', 'awaiting_approval');
)sql";

// Same versions and names as the SQLite list: schema_version() means the same
// schema on both backends.
// Version 6: the session directory of replicas (task_store::hold_session).
constexpr const char* v6_sql = R"sql(
CREATE TABLE sessions (
  key            text PRIMARY KEY,
  owner          text NOT NULL,
  lease_until_ms bigint NOT NULL
);
CREATE INDEX sessions_by_owner ON sessions (owner);
)sql";

// Version 7: skills and task workspaces as rows, so every replica sees them
// (pg_files.cpp). One table for both kinds: the same columns, rules and
// statements, told apart by `kind` ("skills": owner is a user id;
// "workspace": owner is a task id). owner and path are text: they pass
// is_storage_id and check_relative_path (ASCII, no NUL); content is bytea.
constexpr const char* v7_sql = R"sql(
CREATE TABLE files (
  kind        text NOT NULL,
  owner       text NOT NULL,
  path        text NOT NULL,
  content     bytea NOT NULL,
  modified_ms bigint NOT NULL,
  PRIMARY KEY (kind, owner, path)
);
)sql";

// Version 8: users' credentials (secrets, OAuth tokens of user-scoped
// servers), each sealed with the vault key before it is written.
constexpr const char* v8_sql = R"sql(
CREATE TABLE credentials (
  user_id    text NOT NULL,
  kind       text NOT NULL,
  name       text NOT NULL,
  sealed     text NOT NULL,
  updated_ms bigint NOT NULL,
  PRIMARY KEY (user_id, kind, name)
);
)sql";

// Version 9: the language of each task's code (POST /task's "language").
// Tasks from before it were all JavaScript.
constexpr const char* v9_sql = "ALTER TABLE tasks ADD COLUMN language text NOT NULL DEFAULT 'javascript';";

// Version 10: the OpenTelemetry trace each task ran in (its trace id).
constexpr const char* v10_sql = "ALTER TABLE tasks ADD COLUMN trace_id text NOT NULL DEFAULT '';";

constexpr std::array<migration, 10> builtin = {{
    {1, "tasks, events, conversations", v1_sql},
    {2, "usage ledger, recovery and retention indexes", v2_sql},
    {3, "the API key id of each task", v3_sql},
    {4, "awaiting_approval among the unfinished tasks", v4_sql},
    {5, "owner and lease of each task", v5_sql},
    {6, "the session directory of replicas", v6_sql},
    {7, "skills and workspaces as files rows", v7_sql},
    {8, "users' sealed credentials", v8_sql},
    {9, "the language of each task", v9_sql},
    {10, "the trace of each task", v10_sql},
}};

error with_code(error e, errc code) {
  e.code = code;
  return e;
}

// Refuses a database whose tables were not made by this server.
status check_ours(pg_connection& db) {
  auto rows = db.exec(
      "SELECT count(*), count(*) FILTER (WHERE table_name = 'schema_migrations') FROM information_schema.tables "
      "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
      pg_params(), "cannot read the database schema");
  if (!rows) return with_code(rows.error(), errc::open_failed);
  if (rows->int64(0, 0) > 0 && rows->int64(0, 1) == 0) {
    return make_error(errc::open_failed,
                      "the database holds tables of another program (it has tables but no schema_migrations)",
                      "point STORE_URL at this server's database, or at a new empty one");
  }
  return {};
}

result<int> applied_version(pg_connection& db) {
  auto rows =
      db.exec("SELECT coalesce(max(version), 0) FROM schema_migrations", pg_params(), "cannot read the schema version");
  if (!rows) return rows.error();
  return static_cast<int>(rows->int64(0, 0));
}

status apply(pg_connection& db, const migration& m, std::int64_t now_ms) {
  auto s = db.in_transaction<status>(
      [&]() -> status {
        if (auto r = db.exec(m.sql, "cannot apply the migration"); !r) return r;
        auto row = db.exec("INSERT INTO schema_migrations (version, name, applied_ms) VALUES ($1, $2, $3)",
                           pg_params().int64(m.version).text(m.name).int64(now_ms), "cannot record the migration");
        if (!row) return row.error();
        return {};
      },
      "cannot commit the migration");
  if (s) return s;
  auto e = with_code(s.error(), errc::migration_failed);
  e.message = fmt::format("migration {} ({}) failed: {}", m.version, m.name, e.message);
  return e;
}

result<int> migrate_locked(pg_connection& db, std::span<const migration> list, std::int64_t now_ms) {
  if (auto s = check_ours(db); !s) return s.error();
  if (auto s = db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT "
                       "NULL, applied_ms bigint NOT NULL)",
                       "cannot create schema_migrations");
      !s) {
    return with_code(s.error(), errc::open_failed);
  }
  auto current = applied_version(db);
  if (!current) return with_code(current.error(), errc::open_failed);
  const int latest = list.empty() ? 0 : list.back().version;
  if (*current > latest) {
    return make_error(
        errc::too_new,
        fmt::format("the database has schema version {}, this build knows versions up to {}", *current, latest),
        "run the newer mcp-harness build that wrote it, or point STORE_URL at another database; this build does "
        "not touch it");
  }
  for (const auto& m : list) {
    if (m.version <= *current) continue;
    if (auto s = apply(db, m, now_ms); !s) return s.error();
  }
  return latest;
}

}  // namespace

std::span<const migration> postgres_migrations() {
  return builtin;
}

result<migrated_connection> open_migrated_postgres(const std::string& url) {
  auto db = pg_connection::open(url);
  if (!db) return db.error();
  auto version = migrate_postgres(**db, postgres_migrations(), wall_clock_ms());
  if (!version) {
    auto e = version.error();
    e.message = "store " + (*db)->description() + ": " + e.message;
    return e;
  }
  return migrated_connection{std::move(*db), *version};
}

result<int> migrate_postgres(pg_connection& db, std::span<const migration> list, std::int64_t now_ms) {
  // Session-level: held across the migrations' own transactions; a second
  // replica waits here, then finds every version applied.
  if (auto s = db.exec(lock_sql, "cannot take the migration lock"); !s) return with_code(s.error(), errc::open_failed);
  auto version = migrate_locked(db, list, now_ms);
  (void)db.exec(unlock_sql, "cannot release the migration lock");
  return version;
}

}  // namespace harness::store::detail
