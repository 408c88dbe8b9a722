// The error codes of the pii component (the PII censor, its patterns and vault). Each value has
// its wire name and HTTP status in src/pii/errors.cpp; add a code there and here.
#pragma once

#include "harness/core/error_code.hpp"

namespace harness::pii {

enum class errc {
  invalid_pattern = 1,
  unknown_detector,
  invalid_vault,
  json_too_deep,
  invalid_vault_key,  // VAULT_KEY, VAULT_OLD_KEYS or the key file is not a usable key
};

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::pii

template <>
struct boost::system::is_error_code_enum<harness::pii::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::pii::errc> = 5;

namespace harness::pii {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::pii
