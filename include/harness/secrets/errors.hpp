// The error codes of the secrets component (users' secrets for their MCP server instances). Each code is one row of
// the table below: X(enumerator, the wire name clients read, the HTTP status); adding the row is all a new code takes,
// and a wire name never changes (clients depend on it).
#pragma once

#include "harness/core/errc_table.hpp"

#define HARNESS_SECRETS_ERRORS(X)                                           \
  X(invalid_secret_name, "invalid_secret_name", 400)                        \
  X(invalid_secret_value, "invalid_secret_value", 400)                      \
  X(secret_not_found, "secret_not_found", 404)                              \
  /* a stored secret does not open for this user (moved, or another key) */ \
  X(secret_unreadable, "secret_unreadable", 500)

namespace harness::secrets {

enum class errc { HARNESS_ERRC_ENUMERATORS(HARNESS_SECRETS_ERRORS) };

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::secrets

template <>
struct boost::system::is_error_code_enum<harness::secrets::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::secrets::errc> = HARNESS_ERRC_COUNT(HARNESS_SECRETS_ERRORS);

namespace harness::secrets {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::secrets
