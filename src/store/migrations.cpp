#include "migrations.hpp"

#include <array>

#include <fmt/format.h>
#include <sqlite3.h>

#include "harness/store/errors.hpp"

namespace harness::store::detail {
namespace {

// Version 1: tasks, their events, conversations.
constexpr const char* v1_sql = R"sql(
CREATE TABLE tasks (
  id              TEXT PRIMARY KEY NOT NULL,
  user_id         TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  task            TEXT NOT NULL,
  mode            TEXT NOT NULL,
  status          TEXT NOT NULL,
  result          TEXT NOT NULL DEFAULT 'null',
  error           TEXT NOT NULL DEFAULT 'null',
  turns           INTEGER NOT NULL DEFAULT 0,
  input_tokens    INTEGER NOT NULL DEFAULT 0,
  output_tokens   INTEGER NOT NULL DEFAULT 0,
  created_ms      INTEGER NOT NULL,
  started_ms      INTEGER NOT NULL DEFAULT 0,
  finished_ms     INTEGER NOT NULL DEFAULT 0,
  transcript      TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX tasks_by_user_created ON tasks (user_id, created_ms DESC, id DESC);
CREATE INDEX tasks_by_created ON tasks (created_ms DESC, id DESC);
CREATE TABLE events (
  task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  seq     INTEGER NOT NULL,
  type    TEXT NOT NULL,
  data    TEXT NOT NULL DEFAULT 'null',
  at_ms   INTEGER NOT NULL,
  PRIMARY KEY (task_id, seq)
) WITHOUT ROWID;
CREATE TABLE conversations (
  id         TEXT PRIMARY KEY NOT NULL,
  user_id    TEXT NOT NULL,
  messages   TEXT NOT NULL DEFAULT '[]',
  vault      TEXT NOT NULL DEFAULT '{}',
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL
);
)sql";

// Version 2: the usage ledger (kept apart from tasks so retention does not
// change totals), and partial indexes for start-up recovery and retention.
constexpr const char* v2_sql = R"sql(
CREATE TABLE usage (
  id            INTEGER PRIMARY KEY,
  user_id       TEXT NOT NULL,
  task_id       TEXT NOT NULL,
  input_tokens  INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  at_ms         INTEGER NOT NULL
);
CREATE INDEX usage_by_user_at ON usage (user_id, at_ms);
CREATE INDEX usage_by_at ON usage (at_ms);
CREATE INDEX tasks_unfinished ON tasks (status) WHERE status IN ('queued', 'running');
CREATE INDEX tasks_by_finished ON tasks (finished_ms) WHERE finished_ms > 0;
)sql";

// Version 3: the id of the API key that submitted each task (never the key;
// empty for tasks from before keys, or from a server running open).
constexpr const char* v3_sql = R"sql(
ALTER TABLE tasks ADD COLUMN key_id TEXT NOT NULL DEFAULT '';
)sql";

// Version 4: a task waiting for an approval is unfinished too (start-up
// recovery marks it interrupted; retention keeps it).
constexpr const char* v4_sql = R"sql(
DROP INDEX tasks_unfinished;
CREATE INDEX tasks_unfinished ON tasks (status) WHERE status IN ('queued', 'running', 'awaiting_approval');
)sql";

// Version 5: replicas sharing a store. The replica that runs each task (its
// SANDBOX_OWNER) and when its lease ends; recovery looks tasks up by owner.
constexpr const char* v5_sql = R"sql(
ALTER TABLE tasks ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN lease_until_ms INTEGER NOT NULL DEFAULT 0;
CREATE INDEX tasks_unfinished_by_user ON tasks (user_id) WHERE status IN ('queued', 'running', 'awaiting_approval');
)sql";

// Version 6: the session directory of replicas (task_store::hold_session):
// which replica holds each named session, and until when.
constexpr const char* v6_sql = R"sql(
CREATE TABLE sessions (
  key            TEXT PRIMARY KEY NOT NULL,
  owner          TEXT NOT NULL,
  lease_until_ms INTEGER NOT NULL
);
CREATE INDEX sessions_by_owner ON sessions (owner);
)sql";

// Version 7: nothing here. PostgreSQL's version 7 adds the files table of
// skills and workspaces shared by replicas; with SQLite they stay on disk.
// Kept so that a version number means the same schema on both backends.
constexpr const char* v7_sql = "SELECT 1;";

// Version 8: users' credentials (secrets, OAuth tokens of user-scoped
// servers), each sealed with the vault key before it is written.
constexpr const char* v8_sql = R"sql(
CREATE TABLE credentials (
  user_id    TEXT NOT NULL,
  kind       TEXT NOT NULL,
  name       TEXT NOT NULL,
  sealed     TEXT NOT NULL,
  updated_ms INTEGER NOT NULL,
  PRIMARY KEY (user_id, kind, name)
) WITHOUT ROWID;
)sql";

// Version 9: the language of each task's code (POST /task's "language").
// Tasks from before it were all JavaScript.
constexpr const char* v9_sql = "ALTER TABLE tasks ADD COLUMN language TEXT NOT NULL DEFAULT 'javascript';";

// Version 10: the OpenTelemetry trace each task ran in (its trace id).
constexpr const char* v10_sql = "ALTER TABLE tasks ADD COLUMN trace_id TEXT NOT NULL DEFAULT '';";

constexpr std::array<migration, 10> builtin = {{
    {1, "tasks, events, conversations", v1_sql},
    {2, "usage ledger, recovery and retention indexes", v2_sql},
    {3, "the API key id of each task", v3_sql},
    {4, "awaiting_approval among the unfinished tasks", v4_sql},
    {5, "owner and lease of each task", v5_sql},
    {6, "the session directory of replicas", v6_sql},
    {7, "skills and workspaces as files rows (PostgreSQL only)", v7_sql},
    {8, "users' sealed credentials", v8_sql},
    {9, "the language of each task", v9_sql},
    {10, "the trace of each task", v10_sql},
}};

error open_failed(error e) {
  e.code = store::errc::open_failed;
  if (e.hint.empty()) e.hint = "point STORE_PATH at this server's database file, or at a new file";
  return e;
}

// The highest applied version (0 for a new, empty database).
result<int> applied_version(connection& db) {
  auto st = db.prepare("SELECT coalesce(max(version), 0) FROM schema_migrations");
  if (!st) return st.error();
  int rc = st->step();
  if (rc != SQLITE_ROW) return sqlite_failure(db.handle(), rc, "cannot read the schema version");
  return static_cast<int>(st->int64(0));
}

// Refuses a SQLite file that holds tables but was not made by this server:
// running our migrations on it would mix our tables into another program's data.
status check_ours(connection& db) {
  auto st = db.prepare(
      "SELECT count(*), sum(name = 'schema_migrations') FROM sqlite_schema "
      "WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  if (!st) return open_failed(st.error());
  int rc = st->step();
  if (rc != SQLITE_ROW) return open_failed(sqlite_failure(db.handle(), rc, "cannot read the database schema"));
  if (st->int64(0) > 0 && st->int64(1) == 0) {
    return make_error(store::errc::open_failed,
                      "the file is a SQLite database of another program (it has tables but no schema_migrations)",
                      "point STORE_PATH at this server's database file, or at a new file");
  }
  return {};
}

status apply(connection& db, const migration& m, std::int64_t now_ms) {
  // IMMEDIATE takes the write lock first, so two servers starting on one file
  // cannot both apply the same migration: the second re-reads the version.
  if (auto s = db.exec("BEGIN IMMEDIATE", "cannot start a migration"); !s) {
    auto e = s.error();
    e.code = store::errc::migration_failed;
    return e;
  }
  auto fail = [&](error e) -> status {
    (void)db.exec("ROLLBACK", "rollback");
    e.code = store::errc::migration_failed;
    e.message = fmt::format("migration {} ({}) failed: {}", m.version, m.name, e.message);
    return e;
  };
  auto current = applied_version(db);
  if (!current) return fail(current.error());
  if (*current >= m.version) return db.exec("COMMIT", "cannot end a migration");
  if (auto s = db.exec(m.sql, "cannot apply the migration"); !s) return fail(s.error());
  auto st = db.prepare("INSERT INTO schema_migrations (version, name, applied_ms) VALUES (?1, ?2, ?3)");
  if (!st) return fail(st.error());
  st->bind(1, std::int64_t{m.version}).bind(2, m.name).bind(3, now_ms);
  if (auto s = st->run("cannot record the migration"); !s) return fail(s.error());
  if (auto s = db.exec("COMMIT", "cannot commit the migration"); !s) return fail(s.error());
  return {};
}

}  // namespace

std::span<const migration> builtin_migrations() {
  return builtin;
}

result<int> migrate(connection& db, std::span<const migration> list, std::int64_t now_ms) {
  if (auto s = check_ours(db); !s) return s.error();
  if (auto s = db.exec("CREATE TABLE IF NOT EXISTS schema_migrations ("
                       "version INTEGER PRIMARY KEY NOT NULL, name TEXT NOT NULL, applied_ms INTEGER NOT NULL)",
                       "cannot create schema_migrations");
      !s) {
    return open_failed(s.error());
  }
  auto current = applied_version(db);
  if (!current) return open_failed(current.error());
  const int latest = list.empty() ? 0 : list.back().version;
  if (*current > latest) {
    return make_error(
        store::errc::too_new,
        fmt::format("the database has schema version {}, this build knows versions up to {}", *current, latest),
        "run the newer mcp-harness build that wrote it, or point STORE_PATH at another file; this "
        "build does not touch it");
  }
  for (const auto& m : list) {
    if (m.version <= *current) continue;
    if (auto s = apply(db, m, now_ms); !s) return s.error();
  }
  return latest;
}

}  // namespace harness::store::detail
