// Versioned schema migrations. The database records each applied migration in
// schema_migrations(version, name, applied_ms); migrate() applies the missing
// ones in order, each in its own IMMEDIATE transaction together with its row
// there, so a failure leaves the database at the previous version.
#pragma once

#include <span>

#include "sqlite_db.hpp"

namespace harness::store::detail {

struct migration {
  int version;       // 1, 2, 3... without gaps
  const char* name;  // short description, stored with the version
  const char* sql;   // one or more statements, no parameters
};

// Every migration this build knows, oldest first. Append only: a released
// migration is never edited (see docs/architecture/store.md).
std::span<const migration> builtin_migrations();

// Brings the database to the last version of `list` and returns it.
// Errors: "store_open_failed" when the file is not a database, is damaged, or is
// a SQLite database of another program (tables but no schema_migrations);
// "store_too_new" when it records a version above the last of `list`;
// "store_migration_failed" when a migration fails (rolled back).
result<int> migrate(connection& db, std::span<const migration> list, std::int64_t now_ms);

}  // namespace harness::store::detail
