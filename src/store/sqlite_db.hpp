// A thin RAII layer over one sqlite3 connection: a cache of prepared
// statements, typed binding and reading, and sqlite result codes turned into
// harness::error. Not thread-safe: the owner serializes every call.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"
#include "store_common.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace harness::store::detail {

// The error for a failed sqlite call: the code says what kind of failure
// ("store_busy", "store_disk_full", "store_read_only", "store_corrupt",
// "store_io_error", otherwise "store_error"); the message is "<what>: <sqlite's message>".
error sqlite_failure(sqlite3* db, int rc, std::string_view what);

// A prepared statement borrowed from the connection's cache for one use: its
// bindings are cleared and it is reset when the borrow ends.
class statement {
 public:
  statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;
  statement(statement&& other) noexcept : db_(other.db_), stmt_(other.stmt_), bind_rc_(other.bind_rc_) {
    other.stmt_ = nullptr;
  }
  statement& operator=(statement&&) = delete;
  ~statement();

  // Parameters are numbered from 1, as in SQL (?1, ?2...). A failed bind (a
  // value over SQLite's size limit) makes the next step() return its code.
  statement& bind(int index, std::string_view text);
  statement& bind(int index, std::int64_t value);
  statement& bind_json(int index, const nlohmann::json& value);

  // SQLITE_ROW, SQLITE_DONE, or a failure code (see sqlite_failure).
  int step();
  // Steps to completion; fails unless the statement finished (SQLITE_DONE).
  status run(std::string_view what);

  // Columns are numbered from 0.
  std::string text(int column) const;
  std::int64_t int64(int column) const;
  // Fails with "store_corrupt" when the column does not hold JSON.
  result<nlohmann::json> json(int column, std::string_view what) const;

  sqlite3* db() const { return db_; }

 private:
  void note_bind(int rc);

  sqlite3* db_;
  sqlite3_stmt* stmt_;
  int bind_rc_ = 0;  // first failed bind, SQLITE_OK (0) if none
};

class connection {
 public:
  // Opens (creating) the file read-write with extended result codes. Errors
  // come back with code "store_open_failed".
  static result<std::unique_ptr<connection>> open(const std::filesystem::path& file);
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;
  ~connection();

  // Borrows the cached prepared statement for `sql` (a string literal: the
  // cache is keyed by its text), preparing it on first use.
  result<statement> prepare(std::string_view sql);
  // Runs one or more statements that take no parameters (DDL, BEGIN, COMMIT).
  status exec(const char* sql, std::string_view what);
  // Rows changed by the last INSERT, UPDATE or DELETE (not counting cascades).
  std::int64_t changes() const;

  sqlite3* handle() const { return db_; }

 private:
  explicit connection(sqlite3* db) : db_(db) {}
  sqlite3* db_;
  std::unordered_map<std::string_view, sqlite3_stmt*> cache_;
};

}  // namespace harness::store::detail
