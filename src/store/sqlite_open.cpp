#include "sqlite_open.hpp"

#include <system_error>

#include <fmt/format.h>
#include <sqlite3.h>
#include <unistd.h>

#include "harness/core/logging.hpp"
#include "harness/store/errors.hpp"

namespace harness::store::detail {
namespace {

const char* const open_hint = "set STORE_PATH to a file in a folder this process can write";

error open_failed(error e, const std::filesystem::path& file) {
  e.code = store::errc::open_failed;
  e.message = fmt::format("cannot open the store {}: {}", file.string(), e.message);
  if (e.hint.empty()) e.hint = open_hint;
  return e;
}

// sqlite's "unable to open database file" does not say why; a folder we may not
// write is the usual reason.
error explain_open_failure(error e, const std::filesystem::path& file) {
  auto folder = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  if (::access(folder.c_str(), W_OK) != 0) {
    e.message += fmt::format(" (the folder {} is not writable by this process)", folder.string());
  }
  return open_failed(std::move(e), file);
}

// Runs a PRAGMA and returns its first column (empty when it returns no row).
result<std::string> pragma(connection& db, std::string_view sql) {
  auto st = db.prepare(sql);
  if (!st) {
    // Preparing reads the schema: this is where a file that is not a database shows.
    auto e = st.error();
    e.message = std::string("cannot read it as a SQLite database: ") + sqlite3_errmsg(db.handle());
    return e;
  }
  int rc = st->step();
  if (rc == SQLITE_ROW) return st->text(0);
  if (rc == SQLITE_DONE) return std::string();
  return sqlite_failure(db.handle(), rc, "cannot configure the database");
}

}  // namespace

result<opened_database> open_database(const std::filesystem::path& file, std::span<const migration> list,
                                      std::int64_t now_ms) {
  if (file.empty()) return make_error(store::errc::open_failed, "the store path is empty", open_hint);
  std::error_code ec;
  if (file.has_parent_path()) {
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec) {
      return make_error(
          store::errc::open_failed,
          fmt::format("cannot create the folder {} for the store: {}", file.parent_path().string(), ec.message()),
          open_hint);
    }
  }
  if (std::filesystem::is_directory(file, ec)) {
    return make_error(store::errc::open_failed, fmt::format("the store path {} is a folder, not a file", file.string()),
                      open_hint);
  }
  auto db = connection::open(file);
  if (!db) return explain_open_failure(db.error(), file);
  if (sqlite3_db_readonly((*db)->handle(), "main") == 1) {
    return make_error(store::errc::open_failed, fmt::format("the store {} can only be opened read-only", file.string()),
                      "make the file and its folder writable by this process");
  }
  // The first statement reads the file: a file that is not a database fails here.
  auto mode = pragma(**db, "PRAGMA journal_mode = WAL");
  if (!mode) return explain_open_failure(mode.error(), file);
  if (*mode != "wal") {
    core::log_warn("store {}: the file system does not support WAL, journal mode is {}", file.string(), *mode);
  }
  for (auto sql : {"PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON"}) {
    if (auto r = pragma(**db, sql); !r) return open_failed(r.error(), file);
  }
  auto version = migrate(**db, list, now_ms);
  if (!version) {
    auto e = version.error();
    e.message = fmt::format("store {}: {}", file.string(), e.message);
    return e;
  }
  return opened_database{std::move(*db), file, *version, *mode};
}

}  // namespace harness::store::detail
