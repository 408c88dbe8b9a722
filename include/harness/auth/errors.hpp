// The error codes of the auth component (API keys, the key file, caller rules, rate limits). Each code is one row of
// the table below: X(enumerator, the wire name clients read, the HTTP status); adding the row is all a new code takes,
// and a wire name never changes (clients depend on it).
#pragma once

#include "harness/core/errc_table.hpp"

#define HARNESS_AUTH_ERRORS(X)                                \
  /* no Authorization: Bearer header */                       \
  X(key_required, "key_required", 401)                        \
  /* malformed, unknown or revoked key */                     \
  X(invalid_key, "invalid_key", 401)                          \
  /* the route is for admin keys */                           \
  X(admin_required, "admin_required", 403)                    \
  /* no userId, and the key does not have exactly one user */ \
  X(user_required, "user_required", 400)                      \
  /* the key may not act for the named user */                \
  X(user_not_allowed, "user_not_allowed", 403)                \
  /* the key's token bucket is empty */                       \
  X(rate_limited, "rate_limited", 429)                        \
  /* API_KEYS_FILE cannot be read or parsed */                \
  X(invalid_key_file, "invalid_key_file", 500)                \
  X(key_file_write_failed, "key_file_write_failed", 500)      \
  X(random_failed, "random_failed", 500)                      \
  /* `keys revoke` of an id that is not in the file */        \
  X(unknown_key, "unknown_key", 404)                          \
  X(key_id_clash, "key_id_clash", 500)

namespace harness::auth {

enum class errc { HARNESS_ERRC_ENUMERATORS(HARNESS_AUTH_ERRORS) };

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::auth

template <>
struct boost::system::is_error_code_enum<harness::auth::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::auth::errc> = HARNESS_ERRC_COUNT(HARNESS_AUTH_ERRORS);

namespace harness::auth {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::auth
