// UTF-8 in byte strings: the length of a well-formed sequence, and where a
// string may be cut without splitting one. The one copy: the PII censor's
// serialisers, the MCP server's declarations and its answers use it.
#pragma once

#include <cstddef>
#include <string_view>

namespace harness::core {

// Length of the well-formed UTF-8 sequence at s[i] (i < s.size()), 0 when
// there is none (a stray continuation byte, an overlong form, a surrogate, a
// code point past U+10FFFF, or a sequence cut short by the end).
inline std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;  // overlong
    if (b0 == 0xED) hi = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;  // overlong
    if (b0 == 0xF4) hi = 0x8F;  // past U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return 0;
  }
  return n;
}

// Whether all of `s` is well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF).
inline bool utf8_valid(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

// The largest offset <= limit that does not fall inside a sequence (s.size()
// when limit is past the end): where s may be cut.
inline std::size_t utf8_boundary(std::string_view s, std::size_t limit) {
  if (limit >= s.size()) return s.size();
  while (limit > 0 && (static_cast<unsigned char>(s[limit]) & 0xC0) == 0x80) --limit;
  return limit;
}

}  // namespace harness::core
