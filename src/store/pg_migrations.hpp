// The PostgreSQL schema and its versioned migrations: the same versions as the
// SQLite ones (migrations.hpp), in PostgreSQL's own SQL. Plain strings are
// bytea (byte for byte, byte-wise order), JSON is text, numbers bigint.
#pragma once

#include <span>

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

}  // namespace harness::store::detail
