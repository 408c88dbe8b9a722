// A thin RAII layer over one libpq connection: statements with $1..$n
// parameters (text format; bytea values in binary), results read as text, and
// PostgreSQL failures turned into harness::error ("store_..."). Not
// thread-safe: the owner serializes every call.
//
// Plain strings live in bytea columns (byte for byte, NUL and invalid UTF-8
// included, ordered byte-wise as SQLite orders them); JSON in text columns.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"

struct pg_conn;
struct pg_result;

namespace harness::store::detail {

// The SQLSTATEs the store tells apart.
inline constexpr std::string_view unique_violation = "23505";
inline constexpr std::string_view foreign_key_violation = "23503";

// A libpq message on one line: its new lines and tabs (libpq writes a hint
// on a second, indented line) become single spaces, none at either end.
std::string pg_message(const char* message);

class pg_params {
 public:
  pg_params& text(std::string_view value);   // no NUL byte: sent as a C string
  pg_params& bytes(std::string_view value);  // for a bytea: any bytes
  pg_params& int64(std::int64_t value);
  pg_params& json(const nlohmann::json& value);

  int size() const { return static_cast<int>(values_.size()); }
  std::vector<const char*> pointers() const;
  const std::vector<int>& lengths() const { return lengths_; }
  const std::vector<int>& formats() const { return formats_; }

 private:
  pg_params& add(std::string value, int format);
  std::vector<std::string> values_;
  std::vector<int> lengths_, formats_;
};

// The rows of one statement, read in text format.
class pg_rows {
 public:
  explicit pg_rows(::pg_result* r);
  pg_rows(pg_rows&& other) noexcept : r_(other.r_) { other.r_ = nullptr; }
  pg_rows(const pg_rows&) = delete;
  pg_rows& operator=(const pg_rows&) = delete;
  pg_rows& operator=(pg_rows&&) = delete;
  ~pg_rows();

  int size() const;
  // Rows an INSERT, UPDATE or DELETE changed.
  std::int64_t changed() const;
  std::string text(int row, int column) const;
  std::string bytes(int row, int column) const;  // a bytea column
  std::int64_t int64(int row, int column) const;
  result<nlohmann::json> json(int row, int column, std::string_view what) const;
  const ::pg_result* raw() const { return r_; }

 private:
  ::pg_result* r_;
};

class pg_connection {
 public:
  // Connects (blocking). Errors: "store_open_failed" with the server's message
  // and the URL without its password.
  static result<std::unique_ptr<pg_connection>> open(const std::string& url);
  pg_connection(const pg_connection&) = delete;
  pg_connection& operator=(const pg_connection&) = delete;
  ~pg_connection();

  // Runs one statement. A connection found broken before it is reset once
  // (outside a transaction); a failure comes back as "<what>: <message>".
  result<pg_rows> exec(const char* sql, const pg_params& params, std::string_view what);
  status exec(const char* sql, std::string_view what);
  // The SQLSTATE of the last failed statement ("" when it did not reach the server).
  const std::string& last_sqlstate() const { return last_sqlstate_; }

  // Runs body() between BEGIN and COMMIT; ROLLBACK when it fails.
  template <class R, class F>
  R in_transaction(F body, std::string_view what) {
    if (auto s = exec("BEGIN", what); !s) return s.error();
    in_transaction_ = true;
    R r = body();
    in_transaction_ = false;
    if (!r) {
      const auto state = last_sqlstate_;
      (void)exec("ROLLBACK", "rollback");
      last_sqlstate_ = state;
      return r;
    }
    if (auto s = exec("COMMIT", what); !s) return s.error();
    return r;
  }

  const std::string& description() const { return description_; }
  ::pg_conn* handle() const { return conn_; }

 private:
  pg_connection(::pg_conn* conn, std::string description) : conn_(conn), description_(std::move(description)) {}
  status ensure_connected();
  // The rows, or the error of a failed statement (notes its SQLSTATE).
  result<pg_rows> outcome(pg_rows rows, std::string_view what);

  ::pg_conn* conn_;
  std::string description_;  // the URL without its password
  std::string last_sqlstate_;
  bool in_transaction_ = false;
};

// "store_open_failed": cannot connect to `description`, with libpq's message.
error pg_open_failed(std::string_view description, std::string_view message);

}  // namespace harness::store::detail
