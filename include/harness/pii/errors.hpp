// The error codes of the pii component (the PII censor, its patterns and vault). Each code is one row of the table
// below: X(enumerator, the wire name clients read, the HTTP status); adding the row is all a new code takes, and a wire
// name never changes (clients depend on it).
#pragma once

#include "harness/core/errc_table.hpp"

#define HARNESS_PII_ERRORS(X)                                         \
  X(invalid_pattern, "invalid_pii_pattern", 500)                      \
  X(unknown_detector, "unknown_pii_detector", 500)                    \
  X(invalid_vault, "invalid_vault", 500)                              \
  X(json_too_deep, "json_too_deep", 503)                              \
  /* VAULT_KEY, VAULT_OLD_KEYS or the key file is not a usable key */ \
  X(invalid_vault_key, "invalid_vault_key", 500)

namespace harness::pii {

enum class errc { HARNESS_ERRC_ENUMERATORS(HARNESS_PII_ERRORS) };

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::pii

template <>
struct boost::system::is_error_code_enum<harness::pii::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::pii::errc> = HARNESS_ERRC_COUNT(HARNESS_PII_ERRORS);

namespace harness::pii {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::pii
