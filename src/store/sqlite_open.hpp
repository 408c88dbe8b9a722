// Opening the store's SQLite file: folders, connection, pragmas, migrations.
#pragma once

#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "migrations.hpp"
#include "sqlite_db.hpp"

namespace harness::store::detail {

struct opened_database {
  std::unique_ptr<connection> db;
  std::filesystem::path path;
  int version = 0;           // schema version after migrations
  std::string journal_mode;  // "wal" unless the file system cannot do WAL
};

// Creates the parent folders, opens or creates the file, sets WAL,
// synchronous=NORMAL and foreign keys, and migrates it with `list`.
// Errors as open_sqlite_store documents them.
result<opened_database> open_database(const std::filesystem::path& file, std::span<const migration> list,
                                      std::int64_t now_ms);

}  // namespace harness::store::detail
