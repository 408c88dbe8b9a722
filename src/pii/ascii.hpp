// ASCII character classes shared by the validators and the start finder. RE2's
// \d and \b are ASCII-only in both its modes, so these are exactly its classes.
// Internal to the pii component.
#pragma once

namespace harness::pii::detail {

constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
constexpr bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
constexpr bool is_alnum(char c) {
  return is_digit(c) || is_alpha(c);
}
constexpr bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
// A character of RE2's \w, the side of a \b.
constexpr bool is_word(char c) {
  return is_alnum(c) || c == '_';
}

}  // namespace harness::pii::detail
