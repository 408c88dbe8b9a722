// The built-in detectors: name, RE2 pattern, validator. Internal to the pii
// component; the order here is the priority order among built-ins.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "validators.hpp"

namespace harness::pii::detail {

struct builtin_detector {
  std::string_view name;     // "email"; the token kind is its upper case
  std::string_view pattern;  // RE2 syntax, no anchors
  validator_fn validate;
};

std::span<const builtin_detector> builtin_detectors();

// Positions in builtin_detectors(), for code that knows a pattern by heart
// (start_finder.cpp).
enum builtin_index : std::size_t {
  email_index,
  card_index,
  ssn_index,
  phone_index,
  ipv6_index,
  ipv4_index,
  builtin_count
};

// The token-shaped grammar as an RE2 pattern; must accept exactly what
// token_shaped_prefix() accepts.
inline constexpr std::string_view token_shaped_pattern = R"(\[[A-Z][A-Z0-9_]*_[1-9][0-9]*\])";

}  // namespace harness::pii::detail
