// One table per component's error codes. A component's errors.hpp writes each
// code once, as a row X(enumerator, "wire_name", http_status) of a list macro,
// HARNESS_MCP_ERRORS(X) for mcp:
//
//   X(timeout, "mcp_timeout", 503)
//   X(unknown_tool, "mcp_unknown_tool", 404)
//
// and the macros below expand that one list into the enum, its errc_count and
// the rows its category reads wire names and statuses from, so a code cannot
// have a name without a status, and the count cannot fall behind the enum.
#pragma once

#include <span>
#include <string_view>

#include "harness/core/error_code.hpp"

// The enumerators of `enum class errc { HARNESS_ERRC_ENUMERATORS(LIST) };`.
// boost::system reads the value 0 as "no error", so not_an_error takes it and
// the codes run 1..errc_count.
#define HARNESS_ERRC_ENUMERATORS(LIST) not_an_error = 0, LIST(HARNESS_ERRC_ENUMERATOR_)
#define HARNESS_ERRC_ENUMERATOR_(name, wire, status) name,

// The number of codes in LIST, for errc_count.
#define HARNESS_ERRC_COUNT(LIST) (0 LIST(HARNESS_ERRC_ONE_))
#define HARNESS_ERRC_ONE_(name, wire, status) +1

// The rows of LIST in enum order, for errc_table_category.
#define HARNESS_ERRC_ROWS(LIST) \
  { LIST(HARNESS_ERRC_ROW_) }
#define HARNESS_ERRC_ROW_(name, wire, status) harness::errc_row{wire, status},

namespace harness {

struct errc_row {
  std::string_view wire_name = {};
  unsigned http_status = 0;
};

// The category of one component's errc: value v is rows[v - 1]. `rows` must
// outlive the category (a static constexpr array beside it).
class errc_table_category final : public error_category {
 public:
  errc_table_category(const char* name, std::span<const errc_row> rows) noexcept : name_(name), rows_(rows) {}

  const char* name() const noexcept override { return name_; }
  std::string_view wire_name(int value) const noexcept override { return row(value).wire_name; }
  unsigned http_status(int value) const noexcept override { return row(value).http_status; }

 private:
  errc_row row(int value) const noexcept {
    if (value < 1 || static_cast<std::size_t>(value) > rows_.size()) return {};
    return rows_[static_cast<std::size_t>(value) - 1];
  }

  const char* name_;
  std::span<const errc_row> rows_;
};

}  // namespace harness
