// The PostgreSQL schema and its versioned migrations: the same versions as the
// SQLite ones (migrations.hpp), in PostgreSQL's own SQL. Plain strings are
// bytea (byte for byte, byte-wise order), JSON is text, numbers bigint.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "migrations.hpp"
#include "pg_connection.hpp"

namespace harness::store::detail {

// Every PostgreSQL migration this build knows, oldest first; append only.
std::span<const migration> postgres_migrations();

// Brings the database to the last version of `list` and returns it, holding
// a session advisory lock meanwhile so that replicas starting together
// migrate once; each migration runs in its own transaction with its row in
// schema_migrations. Errors as detail::migrate (migrations.hpp).
result<int> migrate_postgres(pg_connection& db, std::span<const migration> list, std::int64_t now_ms);

// A connection to `url` with the schema brought to the last builtin version
// (errors name the server), and that version.
struct migrated_connection {
  std::unique_ptr<pg_connection> db;
  int version = 0;
};
result<migrated_connection> open_migrated_postgres(const std::string& url);

}  // namespace harness::store::detail
