// The SQLite store on a real file in a temporary folder: restarts, WAL,
// upgrades from an older schema, newer files, concurrency, damaged files and
// folders it may not write.
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "harness/store/errors.hpp"
#include "harness/store/task_store.hpp"
#include "store_test_support.hpp"

namespace harness::store {
namespace {

using testing::sample_task;
using testing::temp_folder;

// A second, independent connection to the file, as another process would have.
class raw_db {
 public:
  explicit raw_db(const std::filesystem::path& file) {
    EXPECT_EQ(sqlite3_open(file.c_str(), &db_), SQLITE_OK);
    sqlite3_busy_timeout(db_, 5000);
  }
  ~raw_db() { sqlite3_close(db_); }
  raw_db(const raw_db&) = delete;
  raw_db& operator=(const raw_db&) = delete;
  void exec(const char* sql) {
    char* message = nullptr;
    EXPECT_EQ(sqlite3_exec(db_, sql, nullptr, nullptr, &message), SQLITE_OK) << sql << ": " << (message ? message : "");
    sqlite3_free(message);
  }
  std::string text(const char* sql) {
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql, -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db_);
    std::string out;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) != nullptr) {
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    return out;
  }

 private:
  sqlite3* db_ = nullptr;
};

std::shared_ptr<blocking_task_store> open_ok(const std::filesystem::path& file) {
  auto store = open_blocking_sqlite_store(file);
  EXPECT_TRUE(store) << store.error().code << ": " << store.error().describe();
  return store ? *store : nullptr;
}

void write_file(const std::filesystem::path& file, const std::string& bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << bytes;
}

TEST(SqliteFile, CreatesFoldersAndAReopenKeepsEverything) {
  temp_folder dir;
  auto file = dir.path() / "deep" / "er" / "harness.db";
  {
    auto store = open_ok(file);
    ASSERT_TRUE(store);
    auto t = sample_task("task_1");
    t.task = "héllo wörld ✓";
    t.status = task_status::running;
    t.transcript = nlohmann::json::array({{{"role", "user"}, {"content", t.task}}});
    ASSERT_TRUE(store->create_task(t));
    auto done = sample_task("task_2");
    done.status = task_status::succeeded;
    done.result = "42";
    done.finished_ms = 2000;
    ASSERT_TRUE(store->create_task(done));
    ASSERT_TRUE(store->append_event({"task_1", 1, "llm_start", {{"turn", 1}}, 1001}));
    ASSERT_TRUE(store->save_conversation({"conv_task_1", "alice", nlohmann::json::array({"m"}), {{"k", "v"}}, 1, 2}));
    ASSERT_TRUE(store->record_usage("alice", "task_1", 10, 5, 1002));
  }
  ASSERT_TRUE(std::filesystem::exists(file));

  // The "restart": a new store on the same file sees it all.
  auto store = open_ok(file);
  ASSERT_TRUE(store);
  auto t = store->get_task("task_1");
  ASSERT_TRUE(t && t->has_value());
  EXPECT_EQ((*t)->task, "héllo wörld ✓");
  EXPECT_EQ((*t)->transcript[0]["content"], "héllo wörld ✓");
  auto events = store->events("task_1", 0);
  ASSERT_TRUE(events && events->size() == 1);
  EXPECT_EQ((*events)[0].type, "llm_start");
  auto conv = store->get_conversation("conv_task_1");
  ASSERT_TRUE(conv && conv->has_value());
  EXPECT_EQ((*conv)->vault["k"], "v");
  auto usage = store->usage("alice");
  ASSERT_TRUE(usage);
  EXPECT_EQ(usage->input_tokens, 10);
  // What the agent does at start-up: the task that was running is now interrupted.
  auto n = store->mark_interrupted(5000);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, std::vector<std::string>{"task_1"});
  EXPECT_EQ(store->get_task("task_1").value()->status, task_status::interrupted);
  EXPECT_EQ(store->get_task("task_2").value()->status, task_status::succeeded);
}

TEST(SqliteFile, WalJournalIsOn) {
  temp_folder dir;
  auto file = dir.path() / "harness.db";
  auto store = open_ok(file);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->create_task(sample_task("task_1")));
  EXPECT_EQ(store->health().detail["journalMode"], "wal");
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "harness.db-wal"));
  raw_db raw(file);
  EXPECT_EQ(raw.text("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(raw.text("SELECT id FROM tasks"), "task_1") << "a second connection reads what the store committed";
}

// What a build at schema version 1 created. A frozen copy: never update it.
constexpr const char* schema_v1 = R"sql(
CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY NOT NULL, name TEXT NOT NULL, applied_ms INTEGER NOT NULL);
CREATE TABLE tasks (
  id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL, conversation_id TEXT NOT NULL, task TEXT NOT NULL,
  mode TEXT NOT NULL, status TEXT NOT NULL, result TEXT NOT NULL DEFAULT 'null', error TEXT NOT NULL DEFAULT 'null',
  turns INTEGER NOT NULL DEFAULT 0, input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
  created_ms INTEGER NOT NULL, started_ms INTEGER NOT NULL DEFAULT 0, finished_ms INTEGER NOT NULL DEFAULT 0,
  transcript TEXT NOT NULL DEFAULT '[]');
CREATE INDEX tasks_by_user_created ON tasks (user_id, created_ms DESC, id DESC);
CREATE INDEX tasks_by_created ON tasks (created_ms DESC, id DESC);
CREATE TABLE events (
  task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE, seq INTEGER NOT NULL, type TEXT NOT NULL,
  data TEXT NOT NULL DEFAULT 'null', at_ms INTEGER NOT NULL, PRIMARY KEY (task_id, seq)) WITHOUT ROWID;
CREATE TABLE conversations (
  id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL, messages TEXT NOT NULL DEFAULT '[]',
  vault TEXT NOT NULL DEFAULT '{}', created_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL);
INSERT INTO schema_migrations VALUES (1, 'tasks, events, conversations', 1);
INSERT INTO tasks (id, user_id, conversation_id, task, mode, status, result, created_ms, finished_ms)
  VALUES ('task_old', 'alice', 'conv_old', 'from version 1', 'sync', 'succeeded', '"done"', 10, 20);
INSERT INTO events VALUES ('task_old', 1, 'final', '{"answer":"done"}', 20);
INSERT INTO conversations VALUES ('conv_old', 'alice', '[{"role":"user"}]', '{}', 10, 20);
)sql";

TEST(SqliteFile, AFileFromSchemaVersion1IsUpgradedWithItsData) {
  temp_folder dir;
  auto file = dir.path() / "old.db";
  {
    raw_db raw(file);
    raw.exec(schema_v1);
  }
  auto store = open_ok(file);
  ASSERT_TRUE(store);
  EXPECT_EQ(store->schema_version(), latest_schema_version());
  auto t = store->get_task("task_old");
  ASSERT_TRUE(t && t->has_value());
  EXPECT_EQ((*t)->result, "done");
  EXPECT_EQ((*t)->task, "from version 1");
  EXPECT_EQ((*t)->language, "javascript");  // version 9: every task before it ran JavaScript
  EXPECT_EQ((*t)->trace_id, "");            // version 10: no trace was kept before it
  auto events = store->events("task_old", 0);
  ASSERT_TRUE(events && events->size() == 1);
  EXPECT_EQ((*events)[0].data["answer"], "done");
  EXPECT_TRUE(store->get_conversation("conv_old").value().has_value());
  // Version 2's usage ledger works on the upgraded file.
  ASSERT_TRUE(store->record_usage("alice", "task_old", 3, 4, 30));
  EXPECT_EQ(store->usage("alice").value().output_tokens, 4);

  raw_db raw(file);
  // Every version up to the latest, each once.
  std::string versions;
  for (int v = 1; v <= latest_schema_version(); ++v) versions += (v > 1 ? "," : "") + std::to_string(v);
  EXPECT_EQ(raw.text("SELECT group_concat(version) FROM (SELECT version FROM schema_migrations ORDER BY version)"),
            versions);
  // Version 5: a task from before replicas has no owner and no lease.
  EXPECT_EQ((*t)->owner, "");
  EXPECT_EQ((*t)->lease_until_ms, 0);
}

TEST(SqliteFile, AFileFromANewerBuildIsRefusedAndLeftAlone) {
  temp_folder dir;
  auto file = dir.path() / "new.db";
  ASSERT_TRUE(open_ok(file));
  {
    raw_db raw(file);
    raw.exec("INSERT INTO schema_migrations VALUES (99, 'from the future', 0)");
  }
  auto store = open_blocking_sqlite_store(file);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, harness::store::errc::too_new);
  EXPECT_NE(store.error().message.find("99"), std::string::npos) << store.error().message;
  EXPECT_NE(store.error().message.find(file.string()), std::string::npos) << store.error().message;
  raw_db raw(file);
  EXPECT_EQ(raw.text("SELECT max(version) FROM schema_migrations"), "99");
}

TEST(SqliteFile, FourThreadsAtOnceLoseNothing) {
  temp_folder dir;
  auto file = dir.path() / "busy.db";
  auto store = open_ok(file);
  ASSERT_TRUE(store);
  constexpr int threads = 4, tasks_per_thread = 50, events_per_task = 10;
  std::atomic<int> failures{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < threads; ++w) {
    workers.emplace_back([&, w] {
      const std::string user = "user" + std::to_string(w);
      for (int i = 0; i < tasks_per_thread; ++i) {
        auto t = sample_task("task_" + std::to_string(w) + "_" + std::to_string(i), user, i);
        if (!store->create_task(t)) ++failures;
        for (int seq = 1; seq <= events_per_task; ++seq) {
          if (!store->append_event({t.id, seq, "log", {{"i", seq}}, seq})) ++failures;
        }
        t.status = task_status::succeeded;
        if (!store->update_task(t)) ++failures;
        if (!store->record_usage(user, t.id, 2, 1, i)) ++failures;
        if (!store->list_tasks({.user_id = user, .limit = 5})) ++failures;
      }
    });
  }
  for (auto& t : workers) t.join();
  EXPECT_EQ(failures.load(), 0);
  store.reset();

  auto reopened = open_ok(file);
  ASSERT_TRUE(reopened);
  for (int w = 0; w < threads; ++w) {
    const std::string user = "user" + std::to_string(w);
    auto listed = reopened->list_tasks({.user_id = user, .status = task_status::succeeded, .limit = 1000});
    ASSERT_TRUE(listed);
    EXPECT_EQ(listed->size(), static_cast<std::size_t>(tasks_per_thread)) << user;
    EXPECT_EQ(reopened->usage(user).value().input_tokens, 2 * tasks_per_thread);
    for (int i = 0; i < tasks_per_thread; ++i) {
      auto events = reopened->events("task_" + std::to_string(w) + "_" + std::to_string(i), 0);
      ASSERT_TRUE(events);
      ASSERT_EQ(events->size(), static_cast<std::size_t>(events_per_task));
    }
  }
}

TEST(SqliteFile, AFileThatIsNotADatabaseIsAnOpenError) {
  temp_folder dir;
  auto file = dir.path() / "notes.db";
  std::string text;
  for (int i = 0; i < 200; ++i) text += "these are my notes, not a database\n";
  write_file(file, text);
  auto store = open_blocking_sqlite_store(file);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, harness::store::errc::open_failed);
  EXPECT_NE(store.error().message.find(file.string()), std::string::npos) << store.error().message;
  EXPECT_NE(store.error().message.find("not a database"), std::string::npos) << store.error().message;
  EXPECT_FALSE(store.error().hint.empty());
}

TEST(SqliteFile, ADatabaseWithAClobberedHeaderIsAnOpenError) {
  temp_folder dir;
  auto file = dir.path() / "damaged.db";
  {
    auto store = open_ok(file);
    ASSERT_TRUE(store);
    for (int i = 0; i < 20; ++i) ASSERT_TRUE(store->create_task(sample_task("task_" + std::to_string(i))));
  }
  std::filesystem::remove(dir.path() / "damaged.db-wal");
  std::filesystem::remove(dir.path() / "damaged.db-shm");
  {
    std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(0);
    f << std::string(100, 'X');
  }
  auto store = open_blocking_sqlite_store(file);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, harness::store::errc::open_failed);
}

TEST(SqliteFile, ATruncatedDatabaseFailsCleanly) {
  temp_folder dir;
  auto file = dir.path() / "cut.db";
  {
    auto store = open_ok(file);
    ASSERT_TRUE(store);
    auto t = sample_task("task_big");
    t.transcript = nlohmann::json::array();
    for (int i = 0; i < 2000; ++i) t.transcript.push_back("line " + std::to_string(i) + std::string(100, 'x'));
    ASSERT_TRUE(store->create_task(t));
  }
  std::filesystem::remove(dir.path() / "cut.db-wal");
  std::filesystem::remove(dir.path() / "cut.db-shm");
  std::filesystem::resize_file(file, std::filesystem::file_size(file) / 2);
  // Opening may or may not notice (only some pages are read); reading the task must fail with an error, not crash.
  auto store = open_blocking_sqlite_store(file);
  if (!store) {
    EXPECT_EQ(store.error().code, harness::store::errc::open_failed);
    return;
  }
  auto t = (*store)->get_task("task_big");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().code, harness::store::errc::corrupt) << t.error().describe();
  EXPECT_FALSE((*store)->health().up);
}

TEST(SqliteFile, AFolderThatIsAFileIsAClearError) {
  temp_folder dir;
  write_file(dir.path() / "plain", "x");
  auto store = open_blocking_sqlite_store(dir.path() / "plain" / "harness.db");
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, harness::store::errc::open_failed);
  EXPECT_NE(store.error().message.find("cannot create the folder"), std::string::npos) << store.error().message;
  auto folder = open_blocking_sqlite_store(dir.path());
  ASSERT_FALSE(folder);
  EXPECT_NE(folder.error().message.find("is a folder"), std::string::npos) << folder.error().message;
}

// Runs `body` as an unprivileged user (root ignores file permissions) in a
// child process and returns its exit status; in-process when not root.
int as_unprivileged(const std::function<int()>& body) {
  if (::geteuid() != 0) return body();
  pid_t pid = ::fork();
  if (pid == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(90);
    ::_exit(body());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 99;
}

TEST(SqliteFile, AReadOnlyFolderIsAClearError) {
  temp_folder dir;
  auto folder = dir.path() / "ro";
  std::filesystem::create_directories(folder);
  // An existing database in the folder too: opening it needs its -wal file there.
  ASSERT_TRUE(open_ok(folder / "existing.db"));
  using std::filesystem::perms;
  std::filesystem::permissions(dir.path(), perms::owner_all | perms::others_read | perms::others_exec);
  std::filesystem::permissions(folder, perms::owner_read | perms::owner_exec | perms::others_read | perms::others_exec);

  int rc = as_unprivileged([&] {
    auto fresh = open_blocking_sqlite_store(folder / "harness.db");
    if (fresh) return 1;
    if (fresh.error().code != harness::store::errc::open_failed) return 2;
    if (fresh.error().message.find("not writable") == std::string::npos) return 3;
    if (fresh.error().hint.empty()) return 4;
    auto existing = open_blocking_sqlite_store(folder / "existing.db");
    if (existing) return 5;
    if (existing.error().code != harness::store::errc::open_failed) return 6;
    return 0;
  });
  EXPECT_EQ(rc, 0) << "1: opened, 2: wrong code, 3: message does not say why, 4: no hint, 5/6: existing file";
}

TEST(SqliteFile, ALockedDatabaseIsStoreBusyAndHealthRecovers) {
  temp_folder dir;
  auto file = dir.path() / "locked.db";
  auto store = open_ok(file);
  ASSERT_TRUE(store);
  raw_db other(file);
  other.exec("BEGIN IMMEDIATE");
  other.exec("INSERT INTO usage (user_id, task_id, input_tokens, output_tokens, at_ms) VALUES ('x', 'y', 1, 1, 1)");
  auto blocked = store->create_task(sample_task("task_1"));  // waits out the busy timeout
  ASSERT_FALSE(blocked);
  EXPECT_EQ(blocked.error().code, harness::store::errc::busy) << blocked.error().describe();
  auto h = store->health();
  EXPECT_FALSE(h.up);
  EXPECT_EQ(h.detail["lastError"]["code"], "store_busy");
  EXPECT_TRUE(store->get_task("task_1")) << "readers are not blocked by a writer in WAL mode";
  other.exec("COMMIT");
  ASSERT_TRUE(store->create_task(sample_task("task_1")));
  EXPECT_TRUE(store->health().up);
  EXPECT_EQ(store->health().detail["failures"], 1);
}

TEST(SqliteFile, JsonDamagedOutsideTheServerIsAnErrorNotACrash) {
  temp_folder dir;
  auto file = dir.path() / "edited.db";
  auto store = open_ok(file);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->create_task(sample_task("task_1")));
  {
    raw_db raw(file);
    raw.exec("UPDATE tasks SET result = '{not json' WHERE id = 'task_1'");
  }
  auto t = store->get_task("task_1");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().code, harness::store::errc::corrupt);
  EXPECT_NE(t.error().message.find("result"), std::string::npos) << t.error().message;
}

}  // namespace
}  // namespace harness::store
