#include "start_finder.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "ascii.hpp"

namespace harness::pii::detail {
namespace {

constexpr std::size_t npos = start_finder::npos;

bool char_at(std::string_view t, std::size_t i, char c) {
  return i < t.size() && t[i] == c;
}
bool digits_at(std::string_view t, std::size_t i, std::size_t count) {
  for (std::size_t k = 0; k < count; ++k)
    if (i + k >= t.size() || !is_digit(t[i + k])) return false;
  return true;
}
bool phone_separator_at(std::string_view t, std::size_t i) {
  return i < t.size() && (t[i] == ' ' || t[i] == '.' || t[i] == '-');
}

// The next occurrence of `c` at or after `from`, or npos.
std::size_t find_char(std::string_view t, std::size_t from, char c) {
  if (from >= t.size()) return npos;
  const void* hit = std::memchr(t.data() + from, c, t.size() - from);
  return hit ? static_cast<std::size_t>(static_cast<const char*>(hit) - t.data()) : npos;
}

// ---- token: \[[A-Z][A-Z0-9_]*_[1-9][0-9]*\]

start_candidate find_token_start(std::string_view t, std::size_t pos, kind_set) {
  for (std::size_t s = find_char(t, pos, '['); s != npos; s = find_char(t, s + 1, '[')) {
    if (s + 1 < t.size() && t[s + 1] >= 'A' && t[s + 1] <= 'Z') return {s, token_bit};
  }
  return {npos, 0};
}

// ---- email: [A-Za-z0-9_%+\-][A-Za-z0-9._%+\-]{0,63}@[A-Za-z0-9]...

bool email_local(char c) {
  return is_alnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
}

// Found from the '@': the earliest start is the first non-dot of the run of
// local-part characters before it, at most 64 back. If the match fails there
// it fails from every later start of the same run (the domain is the same).
start_candidate find_email_start(std::string_view t, std::size_t pos, kind_set) {
  for (std::size_t at = find_char(t, pos + 1, '@'); at != npos; at = find_char(t, at + 1, '@')) {
    if (at + 1 >= t.size() || !is_alnum(t[at + 1])) continue;
    const std::size_t lowest = std::max(pos, at >= 64 ? at - 64 : 0);
    std::size_t s = at;
    while (s > lowest && email_local(t[s - 1])) --s;
    while (s < at && t[s] == '.') ++s;
    if (s < at) return {s, kind_bit(email_index)};
  }
  return {npos, 0};
}

// ---- phone: (?:\+|\b00)[1-9]... | (?:(?:\+1|\b1)[ .\-]?)?(?:\(\d{3}\)[ .\-]?|\b\d{3}[ .\-])\d{3}[ .\-]\d{4}

// The North-American layouts from s: an optional "1" and separator, then
// "(ddd)" and an optional separator or "ddd" and a separator, then ddd-dddd.
bool nanp_may_start(std::string_view t, std::size_t s) {
  for (std::size_t prefix = 0; prefix <= 2; ++prefix) {
    if (prefix >= 1 && !char_at(t, s, '1')) break;
    if (prefix == 2 && !phone_separator_at(t, s + 1)) break;
    std::size_t i = s + prefix;
    if (char_at(t, i, '(')) {
      if (!digits_at(t, i + 1, 3) || !char_at(t, i + 4, ')')) continue;
      i += 5;
      if (phone_separator_at(t, i)) ++i;
    } else {
      if (!digits_at(t, i, 3) || !phone_separator_at(t, i + 3)) continue;
      i += 4;
    }
    if (digits_at(t, i, 3) && phone_separator_at(t, i + 3) && digits_at(t, i + 4, 4)) return true;
  }
  return false;
}

start_candidate find_plus_start(std::string_view t, std::size_t pos, kind_set) {
  for (std::size_t s = find_char(t, pos, '+'); s != npos; s = find_char(t, s + 1, '+')) {
    if (s + 1 < t.size() && t[s + 1] >= '1' && t[s + 1] <= '9') return {s, kind_bit(phone_index)};
  }
  return {npos, 0};
}

start_candidate find_paren_start(std::string_view t, std::size_t pos, kind_set) {
  for (std::size_t s = find_char(t, pos, '('); s != npos; s = find_char(t, s + 1, '(')) {
    if (nanp_may_start(t, s)) return {s, kind_bit(phone_index)};
  }
  return {npos, 0};
}

// ---- card, ssn, phone and ipv4 starting with a digit: all begin with \b.
// Each test gets the length of the run of digits at s (`run`) and the
// character after it (`after`, '\0' at the end), which rule most positions
// out before any further look.

bool phone_digit_may_start(std::string_view t, std::size_t s, std::size_t run, char after) {
  if (run >= 3 && t[s] == '0' && t[s + 1] == '0' && t[s + 2] != '0') return true;  // \b00[1-9]
  const bool separator = after == ' ' || after == '.' || after == '-';
  // ddd-, or "1" with a separator or "(" after it, or "1ddd-".
  const bool nanp = (run == 3 && separator) ||
                    (t[s] == '1' && ((run == 1 && (separator || after == '(')) || (run == 4 && separator)));
  return nanp && nanp_may_start(t, s);
}

// \d{3}-\d{2}-\d{4} or the same with spaces.
bool ssn_may_start(std::string_view t, std::size_t s, std::size_t run, char after) {
  return run == 3 && (after == '-' || after == ' ') && digits_at(t, s + 4, 2) && char_at(t, s + 6, after) &&
         digits_at(t, s + 7, 4);
}

// Every layout starts with four digits and holds 13 or more digits of [0-9 \-]
// within its first 23 characters (the longest, 4-4-4-4-3 with separators).
bool card_may_start(std::string_view t, std::size_t s, std::size_t run) {
  if (run < 4) return false;
  std::size_t digits = 0;
  for (std::size_t i = s; i < t.size() && i < s + 23; ++i) {
    if (is_digit(t[i])) {
      if (++digits >= 13) return true;
    } else if (t[i] != ' ' && t[i] != '-') {
      return false;
    }
  }
  return false;
}

// (?:\d{1,3}\.){3}\d{1,3}: a digit run cannot be split, so each group is a whole run.
bool ipv4_may_start(std::string_view t, std::size_t s, std::size_t run, char after) {
  if (run > 3 || after != '.') return false;
  std::size_t i = s + run + 1;
  for (int group = 1; group < 3; ++group) {
    std::size_t len = 0;
    while (len < 4 && i + len < t.size() && is_digit(t[i + len])) ++len;
    if (len == 0 || len > 3 || !char_at(t, i + len, '.')) return false;
    i += len + 1;
  }
  return i < t.size() && is_digit(t[i]);
}

// Eight characters from t[i], the first in the low byte; zeros past the end
// (a zero is neither a digit nor a word character).
std::uint64_t load8(std::string_view t, std::size_t i) {
  unsigned char b[8] = {};
  if (i + 8 <= t.size()) {
    std::memcpy(b, t.data() + i, 8);
  } else {
    std::memcpy(b, t.data() + i, t.size() - i);
  }
  std::uint64_t x = 0;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&x, b, 8);  // with the copy above, one load
  } else {
    for (int k = 7; k >= 0; --k) x = x << 8 | b[k];
  }
  return x;
}

// The bytes of x in [lo, hi] (1 <= lo <= hi <= 127), as their high bit; exact,
// since no borrow or carry crosses a byte (Bit Twiddling Hacks' hasbetween).
constexpr std::uint64_t bytes_between(std::uint64_t x, unsigned lo, unsigned hi) {
  constexpr std::uint64_t ones = 0x0101010101010101u;
  const std::uint64_t low7 = x & (ones * 0x7f);
  return (ones * (128 + hi) - low7) & ~x & (low7 + ones * (128 - lo)) & (ones * 0x80);
}
constexpr std::uint64_t digit_bytes(std::uint64_t x) {
  return bytes_between(x, '0', '9');
}
constexpr std::uint64_t word_bytes(std::uint64_t x) {
  constexpr std::uint64_t case_bit = 0x2020202020202020u;  // upper-case letters become lower-case
  return digit_bytes(x) | bytes_between(x | case_bit, 'a', 'z') | bytes_between(x, '_', '_');
}

kind_set digit_kinds_at(std::string_view t, std::size_t s, kind_set enabled) {
  std::size_t run = 1;
  while (s + run < t.size() && is_digit(t[s + run])) ++run;
  const char after = s + run < t.size() ? t[s + run] : '\0';
  kind_set kinds = 0;
  if ((enabled & kind_bit(card_index)) && card_may_start(t, s, run)) kinds |= kind_bit(card_index);
  if ((enabled & kind_bit(ssn_index)) && ssn_may_start(t, s, run, after)) kinds |= kind_bit(ssn_index);
  if ((enabled & kind_bit(phone_index)) && phone_digit_may_start(t, s, run, after)) kinds |= kind_bit(phone_index);
  if ((enabled & kind_bit(ipv4_index)) && ipv4_may_start(t, s, run, after)) kinds |= kind_bit(ipv4_index);
  return kinds;
}

// The positions of the block `digits` (high bits, as from digit_bytes) whose
// eight characters from there, running on into `next_digits`, hold four
// digits or more. Every match of card, ssn, phone or ipv4 does (1.2.3.4 and
// "1 (415) " are the sparsest), and most digits in prose ("room 204",
// "12.5%") do not. Byte-wise sums, no branch.
constexpr std::uint64_t dense_starts(std::uint64_t digits, std::uint64_t next_digits) {
  constexpr std::uint64_t ones = 0x0101010101010101u;
  const std::uint64_t here = (digits >> 7) * ones;        // byte k: digits in bytes 0..k
  const std::uint64_t there = (next_digits >> 7) * ones;  // the same in the next block
  const std::uint64_t total = (here >> 56) * ones;
  // Byte k: digits in bytes k..7 of this block plus bytes 0..k-1 of the next.
  const std::uint64_t window = total - (here << 8) + (there << 8);
  return (window + ones * (0x80 - 4)) & (ones * 0x80);  // each byte <= 8, so no carry
}

// Eight characters at a time: digits with enough digits after them, then of
// those (rare) the ones with a non-word character or the start of the text
// before them, i.e. after a \b.
start_candidate find_digit_start(std::string_view t, std::size_t pos, kind_set enabled) {
  std::uint64_t digits = pos < t.size() ? digit_bytes(load8(t, pos)) : 0;
  for (std::size_t base = pos; base < t.size(); base += 8) {
    const std::uint64_t next = base + 8 < t.size() ? digit_bytes(load8(t, base + 8)) : 0;
    std::uint64_t starts = digits & dense_starts(digits, next);
    if (starts != 0) {
      const bool word_before = base > 0 && is_word(t[base - 1]);
      starts &= ~(word_bytes(load8(t, base)) << 8 | (word_before ? 0x80 : 0));
      for (; starts != 0; starts &= starts - 1) {
        const std::size_t s = base + static_cast<std::size_t>(std::countr_zero(starts)) / 8;
        if (kind_set kinds = digit_kinds_at(t, s, enabled)) return {s, kinds};
      }
    }
    digits = next;
  }
  return {npos, 0};
}

// ---- ipv6: (?:HEX:){7}HEX | (?:HEX:){6}V4 | (?:HEX(?::HEX){0,6})?::(?:HEX(?::HEX){0,6})?(?::V4)?

bool ipv6_char(char c) {
  return is_hex(c) || c == ':' || c == '.';
}

// Every form starts with 1-4 hex digits and ':', or with "::", and has "::" or
// six colons within its first 40 characters (seven groups and "::" end at 36).
bool ipv6_may_start(std::string_view t, std::size_t s) {
  std::size_t i = s;
  while (i < t.size() && i < s + 4 && is_hex(t[i])) ++i;
  if (!char_at(t, i, ':') || (i == s && !char_at(t, s + 1, ':'))) return false;
  int colons = 0;
  for (std::size_t k = s; k < t.size() && k < s + 40 && ipv6_char(t[k]); ++k) {
    if (t[k] == ':' && (char_at(t, k + 1, ':') || ++colons >= 6)) return true;
  }
  return false;
}

// A match lies inside one run of [0-9A-Fa-f:.] and starts at most four
// characters before a ':'. A run without "::" and six colons (a clock time, a
// MAC address) holds none and is passed over whole.
start_candidate find_ipv6_start(std::string_view t, std::size_t pos, kind_set) {
  for (std::size_t colon = find_char(t, pos, ':'); colon != npos;) {
    const std::size_t lowest = std::max(pos, colon >= 4 ? colon - 4 : 0);
    std::size_t first = colon;
    while (first > lowest && ipv6_char(t[first - 1])) --first;
    std::size_t end = first, colons = 0;
    bool compressed = false;
    for (; end < t.size() && ipv6_char(t[end]); ++end) {
      if (t[end] != ':') continue;
      ++colons;
      compressed = compressed || char_at(t, end + 1, ':');
    }
    if (compressed || colons >= 6) {
      for (std::size_t s = first; s < end; ++s)
        if (ipv6_may_start(t, s)) return {s, kind_bit(ipv6_index)};
    }
    colon = find_char(t, end, ':');
  }
  return {npos, 0};
}

}  // namespace

start_finder::start_finder(std::string_view text, kind_set enabled) : text_(text), enabled_(enabled) {
  const struct {
    kind_set kinds;
    find_fn find;
  } all[] = {
      {token_bit, find_token_start},
      {kind_bit(email_index), find_email_start},
      {kind_bit(phone_index), find_plus_start},
      {kind_bit(phone_index), find_paren_start},
      {kind_bit(card_index) | kind_bit(ssn_index) | kind_bit(phone_index) | kind_bit(ipv4_index), find_digit_start},
      {kind_bit(ipv6_index), find_ipv6_start},
  };
  static_assert(std::size(all) == std::tuple_size_v<decltype(streams_)>);
  for (const auto& s : all) {
    if (s.kinds & enabled) streams_[stream_count_++].find = s.find;
  }
}

start_candidate start_finder::next(std::size_t pos) {
  start_candidate best{npos, 0};
  for (std::size_t i = 0; i < stream_count_; ++i) {
    stream& s = streams_[i];
    // The kept answer holds for every pos between the one asked and the position found.
    if (s.asked == npos || pos < s.asked || pos > s.found.pos) {
      s.found = s.find(text_, pos, enabled_);
      s.asked = pos;
    }
    if (s.found.pos < best.pos) {
      best = s.found;
    } else if (s.found.pos == best.pos && best.pos != npos) {
      best.kinds |= s.found.kinds;
    }
  }
  return best;
}

}  // namespace harness::pii::detail
