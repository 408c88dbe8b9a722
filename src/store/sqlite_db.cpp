#include "sqlite_db.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include "harness/store/errors.hpp"

namespace harness::store::detail {
namespace {

constexpr int busy_timeout_ms = 5000;

errc failure_code(int rc) {
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return errc::busy;
    case SQLITE_FULL:
      return errc::disk_full;
    case SQLITE_READONLY:
      return errc::read_only;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return errc::corrupt;
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
      return errc::io_error;
    default:
      return errc::error;
  }
}

std::string failure_hint(int rc) {
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return "another process holds the database locked; retry, or stop the other process using STORE_PATH";
    case SQLITE_FULL:
      return "free disk space where STORE_PATH lives";
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
      return "make the folder of STORE_PATH and the files in it writable by this process";
    case SQLITE_CORRUPT:
      return "the database file is damaged: restore it from a backup, or move it away and restart";
    case SQLITE_NOTADB:
      return "the file is not a SQLite database (or its header is damaged): point STORE_PATH at another file, or "
             "move this one away";
    default:
      return {};
  }
}

}  // namespace

error sqlite_failure(sqlite3* db, int rc, std::string_view what) {
  // sqlite3_errmsg describes the most recent failure on the connection, which
  // is this one: the caller serializes access. A failed bind is reported at the
  // next step, when later successful binds may have cleared the message.
  const bool message_is_ours = db != nullptr && (sqlite3_extended_errcode(db) & 0xff) == (rc & 0xff);
  std::string detail = message_is_ours ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  return make_error(failure_code(rc), fmt::format("{}: {} (sqlite code {})", what, detail, rc), failure_hint(rc));
}

statement::~statement() {
  if (stmt_ == nullptr) return;
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

statement& statement::bind(int index, std::string_view text) {
  // SQLITE_TRANSIENT: sqlite copies, so the caller's string may go away.
  note_bind(sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
  return *this;
}

statement& statement::bind(int index, std::int64_t value) {
  note_bind(sqlite3_bind_int64(stmt_, index, value));
  return *this;
}

statement& statement::bind_json(int index, const nlohmann::json& value) {
  return bind(index, dump_json(value));
}

void statement::note_bind(int rc) {
  if (bind_rc_ == SQLITE_OK) bind_rc_ = rc;
}

int statement::step() {
  // Without this, an unbound (NULL) parameter would surface as a misleading
  // NOT NULL constraint failure.
  if (bind_rc_ != SQLITE_OK) return bind_rc_;
  return sqlite3_step(stmt_);
}

status statement::run(std::string_view what) {
  int rc = step();
  while (rc == SQLITE_ROW) rc = step();
  if (rc != SQLITE_DONE) return sqlite_failure(db_, rc, what);
  return {};
}

std::string statement::text(int column) const {
  auto* data = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  if (data == nullptr) return {};
  return std::string(data, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::int64_t statement::int64(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

result<nlohmann::json> statement::json(int column, std::string_view what) const {
  return parse_json_column(text(column), what, sqlite3_column_name(stmt_, column));
}

result<std::unique_ptr<connection>> connection::open(const std::filesystem::path& file) {
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
  int rc = sqlite3_open_v2(file.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    auto e = sqlite_failure(db, rc, "sqlite cannot open it");
    sqlite3_close(db);  // sqlite hands out a handle even on failure
    e.code = store::errc::open_failed;
    return e;
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, busy_timeout_ms);
  return std::unique_ptr<connection>(new connection(db));
}

connection::~connection() {
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
  sqlite3_close(db_);
}

result<statement> connection::prepare(std::string_view sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    sqlite3_stmt* stmt = nullptr;
    int rc =
        sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) return sqlite_failure(db_, rc, "cannot prepare a statement");
    it = cache_.emplace(sql, stmt).first;
  }
  return statement(db_, it->second);
}

status connection::exec(const char* sql, std::string_view what) {
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return sqlite_failure(db_, rc, what);
  return {};
}

std::int64_t connection::changes() const {
  return sqlite3_changes64(db_);
}

}  // namespace harness::store::detail
