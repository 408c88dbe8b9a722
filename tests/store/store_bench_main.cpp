// store_bench: per-call cost of the SQLite store beside raw SQLite inserts on
// the same disk (synchronous NORMAL and FULL), in one run. Not a test.
//   cmake --build build --target store_bench && build/tests/store/store_bench [folder]
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>

#include "harness/store/task_store.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
using harness::store::task_record;

// Microseconds per call over `n` calls.
double per_call_us(int n, const std::function<void(int)>& call) {
  auto start = clock_type::now();
  for (int i = 0; i < n; ++i) call(i);
  return std::chrono::duration<double, std::micro>(clock_type::now() - start).count() / n;
}

double raw_inserts(const std::filesystem::path& file, const char* synchronous, int n) {
  sqlite3* db = nullptr;
  sqlite3_open(file.c_str(), &db);
  sqlite3_exec(db, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr);
  sqlite3_exec(db, synchronous, nullptr, nullptr, nullptr);
  sqlite3_exec(db,
               "CREATE TABLE events (task_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT "
               "NULL, at_ms INTEGER NOT NULL, PRIMARY KEY (task_id, seq)) WITHOUT ROWID",
               nullptr, nullptr, nullptr);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO events VALUES (?1, ?2, ?3, ?4, ?5)", -1, &st, nullptr);
  const std::string data = R"({"text":"console output of the block, about a hundred bytes of it ......"})";
  double us = per_call_us(n, [&](int i) {
    sqlite3_bind_text(st, 1, "task_1", -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, i + 1);
    sqlite3_bind_text(st, 3, "log", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, data.c_str(), static_cast<int>(data.size()), SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, i);
    sqlite3_step(st);
    sqlite3_reset(st);
  });
  sqlite3_finalize(st);
  sqlite3_close(db);
  return us;
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  fs::path dir = argc > 1 ? fs::path(argv[1]) : fs::temp_directory_path() / "harness_store_bench";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const int n = 20000;

  double raw_normal = raw_inserts(dir / "raw_normal.db", "PRAGMA synchronous = NORMAL", n);
  double raw_full = raw_inserts(dir / "raw_full.db", "PRAGMA synchronous = FULL", 2000);

  auto store = harness::store::open_blocking_sqlite_store(dir / "store.db").value();
  task_record t;
  t.id = "task_1";
  t.user_id = "user0";
  t.status = harness::store::task_status::running;
  (void)store->create_task(t);
  const nlohmann::json data = {{"text", "console output of the block, about a hundred bytes of it ......"}};
  double append = per_call_us(n, [&](int i) { (void)store->append_event({"task_1", i + 1, "log", data, i}); });
  double read_events = per_call_us(200, [&](int i) { (void)store->events("task_1", i * 10, 100); });

  // A task after 25 turns: a transcript of 50 messages of 2 KB (~100 KB).
  t.transcript = nlohmann::json::array();
  for (int m = 0; m < 50; ++m) t.transcript.push_back({{"role", "user"}, {"content", std::string(2000, 'x')}});
  double update_big = per_call_us(500, [&](int i) {
    t.turns = i;
    (void)store->update_task(t);
  });
  double get_big = per_call_us(500, [&](int) { (void)store->get_task("task_1"); });

  task_record small;
  small.status = harness::store::task_status::succeeded;
  double create = per_call_us(n, [&](int i) {
    small.id = "task_s" + std::to_string(i);
    small.user_id = "user" + std::to_string(i % 10);
    small.created_ms = i;
    (void)store->create_task(small);
  });
  double list = per_call_us(500, [&](int) { (void)store->list_tasks({.user_id = "user3", .limit = 50}); });
  double list_page = per_call_us(
      500, [&](int i) { (void)store->list_tasks({.user_id = "user3", .limit = 50, .before_ms = n - i * 20}); });

  std::printf("raw sqlite insert, WAL, synchronous=NORMAL : %8.2f us/call (baseline)\n", raw_normal);
  std::printf("raw sqlite insert, WAL, synchronous=FULL   : %8.2f us/call (%.1fx baseline)\n", raw_full,
              raw_full / raw_normal);
  std::printf("store append_event                         : %8.2f us/call (%.2fx baseline)\n", append,
              append / raw_normal);
  std::printf("store create_task (small)                  : %8.2f us/call\n", create);
  std::printf("store update_task (100 KB transcript)      : %8.2f us/call\n", update_big);
  std::printf("store get_task (100 KB transcript)         : %8.2f us/call\n", get_big);
  std::printf("store events (100 of 20000)                : %8.2f us/call\n", read_events);
  std::printf("store list_tasks 50 of 2000 (user of 10)   : %8.2f us/call\n", list);
  std::printf("store list_tasks 50, paged by before_ms    : %8.2f us/call\n", list_page);
  store.reset();
  fs::remove_all(dir);
}
