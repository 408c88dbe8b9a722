#include "pg_connection.hpp"

#include <charconv>

#include <fmt/format.h>
#include <libpq-fe.h>

#include "harness/store/errors.hpp"
#include "pg_conninfo.hpp"
#include "store_common.hpp"

namespace harness::store::detail {
namespace {

errc failure_code(std::string_view state) {
  if (state.empty() || state.starts_with("08") || state.starts_with("57P")) return errc::io_error;
  if (state == "53100") return errc::disk_full;
  if (state == "25006") return errc::read_only;
  if (state == "40001" || state == "40P01" || state == "55P03" || state == "57014" || state == "53300") {
    return errc::busy;
  }
  if (state.starts_with("XX")) return errc::corrupt;
  return errc::error;
}

std::string failure_hint(errc code) {
  switch (code) {
    case errc::io_error:
      return "check that the PostgreSQL server of STORE_URL is up and reachable";
    case errc::disk_full:
      return "free disk space on the PostgreSQL server";
    case errc::read_only:
      return "point STORE_URL at the primary server, not a read-only replica";
    case errc::busy:
      return "the database is busy; retry";
    default:
      return {};
  }
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 0;
}

}  // namespace

std::string pg_message(const char* message) {
  std::string out;
  bool space = false;
  for (const char* p = message == nullptr ? "" : message; *p; ++p) {
    const bool blank = *p == '\n' || *p == '\t' || *p == '\r' || *p == ' ';
    if (blank) {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(*p);
  }
  return out;
}

pg_params& pg_params::add(std::string value, int format) {
  lengths_.push_back(static_cast<int>(value.size()));
  formats_.push_back(format);
  values_.push_back(std::move(value));
  return *this;
}

pg_params& pg_params::text(std::string_view value) {
  return add(std::string(value), 0);
}

pg_params& pg_params::bytes(std::string_view value) {
  return add(std::string(value), 1);
}

pg_params& pg_params::int64(std::int64_t value) {
  return add(std::to_string(value), 0);
}

pg_params& pg_params::json(const nlohmann::json& value) {
  return add(dump_json(value), 0);
}

std::vector<const char*> pg_params::pointers() const {
  std::vector<const char*> out;
  out.reserve(values_.size());
  for (const auto& v : values_) out.push_back(v.c_str());
  return out;
}

pg_rows::pg_rows(PGresult* r) : r_(r) {}

pg_rows::~pg_rows() {
  if (r_ != nullptr) PQclear(r_);
}

int pg_rows::size() const {
  return PQntuples(r_);
}

std::int64_t pg_rows::changed() const {
  const char* n = PQcmdTuples(r_);
  std::int64_t out = 0;
  if (n != nullptr) std::from_chars(n, n + std::char_traits<char>::length(n), out);
  return out;
}

std::string pg_rows::text(int row, int column) const {
  return std::string(PQgetvalue(r_, row, column), static_cast<std::size_t>(PQgetlength(r_, row, column)));
}

std::string pg_rows::bytes(int row, int column) const {
  // bytea in text format is "\x" and two hex digits per byte.
  const char* hex = PQgetvalue(r_, row, column);
  const auto length = static_cast<std::size_t>(PQgetlength(r_, row, column));
  std::string out;
  if (length < 2) return out;
  out.reserve((length - 2) / 2);
  for (std::size_t i = 2; i + 1 < length; i += 2) {
    out.push_back(static_cast<char>(hex_value(hex[i]) * 16 + hex_value(hex[i + 1])));
  }
  return out;
}

std::int64_t pg_rows::int64(int row, int column) const {
  const char* v = PQgetvalue(r_, row, column);
  std::int64_t out = 0;
  std::from_chars(v, v + PQgetlength(r_, row, column), out);
  return out;
}

result<nlohmann::json> pg_rows::json(int row, int column, std::string_view what) const {
  return parse_json_column(text(row, column), what, PQfname(r_, column));
}

error pg_open_failed(std::string_view description, std::string_view message) {
  return make_error(errc::open_failed,
                    fmt::format("cannot connect to the store (STORE_URL) {}: {}", description, message),
                    "check STORE_URL and that the PostgreSQL server is up and accepts this user");
}

result<std::unique_ptr<pg_connection>> pg_connection::open(const std::string& url) {
  auto description = redact_url(url);
  if (!parses_as_conninfo(url)) return pg_open_failed(description, "STORE_URL is not a valid libpq connection URI");
  const connect_params params(url);
  PGconn* conn = PQconnectdbParams(params.keys(), params.values(), 1);
  if (conn == nullptr) return pg_open_failed(description, "out of memory");
  if (PQstatus(conn) != CONNECTION_OK) {
    // libpq's connection messages name the host and port, never the password.
    auto message = pg_message(PQerrorMessage(conn));
    PQfinish(conn);
    return pg_open_failed(description, message);
  }
  // NOTICEs ("relation already exists, skipping") are not for our log.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  return std::unique_ptr<pg_connection>(new pg_connection(conn, std::move(description)));
}

pg_connection::~pg_connection() {
  PQfinish(conn_);
}

status pg_connection::ensure_connected() {
  if (PQstatus(conn_) == CONNECTION_OK) return {};
  // Inside a transaction a new connection would lose its first half: fail.
  if (!in_transaction_) PQreset(conn_);
  if (PQstatus(conn_) == CONNECTION_OK) return {};
  last_sqlstate_.clear();
  return make_error(errc::io_error,
                    fmt::format("lost the connection to {}: {}", description_, pg_message(PQerrorMessage(conn_))),
                    failure_hint(errc::io_error));
}

result<pg_rows> pg_connection::exec(const char* sql, const pg_params& params, std::string_view what) {
  if (auto s = ensure_connected(); !s) return s.error();
  auto values = params.pointers();
  return outcome(pg_rows(PQexecParams(conn_, sql, params.size(), nullptr, values.data(), params.lengths().data(),
                                      params.formats().data(), 0)),
                 what);
}

result<pg_rows> pg_connection::outcome(pg_rows rows, std::string_view what) {
  const auto* r = rows.raw();
  const auto state = r == nullptr ? PGRES_FATAL_ERROR : PQresultStatus(r);
  if (state == PGRES_COMMAND_OK || state == PGRES_TUPLES_OK) {
    last_sqlstate_.clear();
    return rows;
  }
  const char* sqlstate = r == nullptr ? nullptr : PQresultErrorField(r, PG_DIAG_SQLSTATE);
  last_sqlstate_ = sqlstate == nullptr ? "" : sqlstate;
  auto message = pg_message(r == nullptr ? PQerrorMessage(conn_) : PQresultErrorMessage(r));
  if (message.starts_with("ERROR:  ")) message.erase(0, 8);
  const auto code = failure_code(last_sqlstate_);
  return make_error(
      code, fmt::format("{}: {} (sqlstate {})", what, message, last_sqlstate_.empty() ? "none" : last_sqlstate_),
      failure_hint(code));
}

status pg_connection::exec(const char* sql, std::string_view what) {
  if (auto s = ensure_connected(); !s) return s.error();
  // PQexec: the simple protocol, which takes several statements (migrations).
  auto rows = outcome(pg_rows(PQexec(conn_, sql)), what);
  if (!rows) return rows.error();
  return {};
}

}  // namespace harness::store::detail
