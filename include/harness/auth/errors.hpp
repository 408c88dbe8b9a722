// The error codes of the auth component (API keys, the key file, caller rules,
// rate limits). Each value has its wire name and HTTP status in
// src/auth/errors.cpp; add a code there and here.
#pragma once

#include "harness/core/error_code.hpp"

namespace harness::auth {

enum class errc {
  key_required = 1,  // no Authorization: Bearer header
  invalid_key,       // malformed, unknown or revoked key
  admin_required,    // the route is for admin keys
  user_required,     // no userId, and the key does not have exactly one user
  user_not_allowed,  // the key may not act for the named user
  rate_limited,      // the key's token bucket is empty
  invalid_key_file,  // API_KEYS_FILE cannot be read or parsed
  key_file_write_failed,
  random_failed,
  unknown_key,  // `keys revoke` of an id that is not in the file
  key_id_clash,
};

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::auth

template <>
struct boost::system::is_error_code_enum<harness::auth::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::auth::errc> = 11;

namespace harness::auth {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::auth
