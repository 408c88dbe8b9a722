#include "byte_classes.hpp"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ascii.hpp"

namespace harness::pii::detail {

byte_classes classify_block_bytewise(std::string_view t, std::size_t base) {
  byte_classes out;
  const std::size_t n = base < t.size() ? std::min<std::size_t>(64, t.size() - base) : 0;
  for (std::size_t k = 0; k < n; ++k) {
    const char c = t[base + k];
    const std::uint64_t bit = std::uint64_t{1} << k;
    if (is_digit(c)) out.digit |= bit;
    if (is_word(c)) out.word |= bit;
    if (c == '.') out.dot |= bit;
    if (c == ' ' || c == '-') out.space_or_dash |= bit;
    if (c == '1') out.one |= bit;
    if (c == '0') out.zero |= bit;
    if (c == '(') out.paren |= bit;
  }
  return out;
}

std::uint64_t char_bits_bytewise(std::string_view t, std::size_t base, char c) {
  std::uint64_t out = 0;
  const std::size_t n = base < t.size() ? std::min<std::size_t>(64, t.size() - base) : 0;
  for (std::size_t k = 0; k < n; ++k)
    if (t[base + k] == c) out |= std::uint64_t{1} << k;
  return out;
}

#if defined(__SSE2__)

namespace {

// The 64 bytes from base, or a copy padded with NULs (in no class) near the end.
const char* block_at(std::string_view t, std::size_t base, char (&padded)[64]) {
  if (base < t.size() && t.size() - base >= 64) return t.data() + base;
  std::memset(padded, 0, sizeof padded);
  if (base < t.size()) std::memcpy(padded, t.data() + base, t.size() - base);
  return padded;
}

std::uint64_t movemask(__m128i m, int chunk) {
  return static_cast<std::uint64_t>(static_cast<std::uint16_t>(_mm_movemask_epi8(m))) << (16 * chunk);
}

}  // namespace

std::uint64_t char_bits(std::string_view t, std::size_t base, char c) {
  char padded[64];
  const char* p = block_at(t, base, padded);
  std::uint64_t out = 0;
  for (int i = 0; i < 4; ++i) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
    out |= movemask(_mm_cmpeq_epi8(x, _mm_set1_epi8(c)), i);
  }
  const std::size_t n = base < t.size() ? t.size() - base : 0;
  return n >= 64 ? out : out & ((std::uint64_t{1} << n) - 1);  // not the padding
}

byte_classes classify_block(std::string_view t, std::size_t base) {
  char padded[64];
  const char* p = block_at(t, base, padded);
  byte_classes out;
  for (int i = 0; i < 4; ++i) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
    // Signed compares: bytes from 0x80 up are negative, so never in a range.
    const auto between = [](__m128i v, char lo, char hi) {
      return _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(static_cast<char>(lo - 1))),
                           _mm_cmplt_epi8(v, _mm_set1_epi8(static_cast<char>(hi + 1))));
    };
    const auto is = [&](char c) { return _mm_cmpeq_epi8(x, _mm_set1_epi8(c)); };
    const auto bits = [&](__m128i m) { return movemask(m, i); };
    const __m128i digit = between(x, '0', '9');
    const __m128i letter = between(_mm_or_si128(x, _mm_set1_epi8(0x20)), 'a', 'z');  // 0x20 lower-cases A-Z
    out.digit |= bits(digit);
    out.word |= bits(_mm_or_si128(_mm_or_si128(digit, letter), is('_')));
    out.dot |= bits(is('.'));
    out.space_or_dash |= bits(_mm_or_si128(is(' '), is('-')));
    out.one |= bits(is('1'));
    out.zero |= bits(is('0'));
    out.paren |= bits(is('('));
  }
  return out;
}

#else

byte_classes classify_block(std::string_view t, std::size_t base) {
  return classify_block_bytewise(t, base);
}

std::uint64_t char_bits(std::string_view t, std::size_t base, char c) {
  return char_bits_bytewise(t, base, c);
}

#endif

}  // namespace harness::pii::detail
