// PostgreSQL connection strings in messages and logs: never the password.
#pragma once

#include <string>

namespace harness::store::detail {

// "postgresql://user@host:port/dbname" from a libpq URI or key=value string,
// without the password and without other options; "(an unreadable PostgreSQL
// URL)" when libpq cannot parse it.
std::string redact_url(const std::string& url);

// Whether libpq can parse `url` (its parse message may quote the password,
// so callers report a malformed URL in words of their own).
bool parses_as_conninfo(const std::string& url);

// Keyword/value arrays for PQconnectdbParams / PQconnectStartParams (with
// expand_dbname = 1): our defaults first, then the URL as dbname, so that
// anything the URL sets wins. The defaults: a 10 s connect timeout, TCP
// keepalives (a dead server is noticed in about a minute, not at the kernel's
// two-hour default), and bytea in hex (what pg_rows::bytes reads), whatever
// the server's or the role's bytea_output. Valid while `url` lives.
struct connect_params {
  explicit connect_params(const std::string& url);
  const char* const* keys() const { return keys_; }
  const char* const* values() const { return values_; }

 private:
  const char* keys_[8];
  const char* values_[8];
};

}  // namespace harness::store::detail
