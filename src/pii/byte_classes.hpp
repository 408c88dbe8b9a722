// byte_classes: 64 bytes of text as one bit per byte for each character class
// the start finder tests (bit k is byte k), so that it can test a layout at 64
// positions with a few shifts and ANDs. Internal to the pii component.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace harness::pii::detail {

struct byte_classes {
  std::uint64_t digit = 0;          // [0-9]
  std::uint64_t word = 0;           // [0-9A-Za-z_], RE2's \w
  std::uint64_t dot = 0;            // .
  std::uint64_t space_or_dash = 0;  // ' ' or '-'
  std::uint64_t one = 0;            // 1
  std::uint64_t zero = 0;           // 0
  std::uint64_t paren = 0;          // (
};

// The classes of t[base, base + 64); bytes past the end of t are in none.
// Uses SSE2 where the target has it.
byte_classes classify_block(std::string_view t, std::size_t base);

// The same one byte at a time: the path for other targets, and the reference
// the tests hold the SSE2 path to.
byte_classes classify_block_bytewise(std::string_view t, std::size_t base);

// Bit k: t[base + k] == c, for one character (the same two ways).
std::uint64_t char_bits(std::string_view t, std::size_t base, char c);
std::uint64_t char_bits_bytewise(std::string_view t, std::size_t base, char c);

}  // namespace harness::pii::detail
