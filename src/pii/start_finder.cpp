#include "start_finder.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "ascii.hpp"
#include "byte_classes.hpp"

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

start_candidate find_token_start(std::string_view t, std::size_t pos) {
  for (std::size_t s = find_char(t, pos, '['); s != npos; s = find_char(t, s + 1, '[')) {
    if (s + 1 < t.size() && t[s + 1] >= 'A' && t[s + 1] <= 'Z') return {s, token_bit};
  }
  return {npos, 0};
}

// ---- email: [A-Za-z0-9_%+\-][A-Za-z0-9._%+\-]{0,63}@[A-Za-z0-9]...

bool email_local(char c) {
  return is_alnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
}

// The domain after the '@': [A-Za-z0-9][A-Za-z0-9.\-]{0,250} then "." and a
// letter, all in one run of [A-Za-z0-9.\-] ("user@localhost" has none).
bool domain_may_follow(std::string_view t, std::size_t at) {
  if (at + 1 >= t.size() || !is_alnum(t[at + 1])) return false;
  for (std::size_t i = at + 2; i < t.size() && i <= at + 252; ++i) {
    if (t[i] == '.') {
      if (i + 1 < t.size() && is_alpha(t[i + 1])) return true;
    } else if (!is_alnum(t[i]) && t[i] != '-') {
      return false;
    }
  }
  return false;
}

// Found from the '@': the earliest start is the first non-dot of the run of
// local-part characters before it, at most 64 back.
start_candidate find_email_start(std::string_view t, std::size_t pos) {
  for (std::size_t at = find_char(t, pos + 1, '@'); at != npos; at = find_char(t, at + 1, '@')) {
    if (!domain_may_follow(t, at)) continue;
    const std::size_t lowest = std::max(pos, at >= 64 ? at - 64 : 0);
    std::size_t s = at;
    while (s > lowest && email_local(t[s - 1])) --s;
    while (s < at && t[s] == '.') ++s;
    if (s < at) return {s, kind_bit(email_index)};
  }
  return {npos, 0};
}

// ---- phone: (?:\+|\b00)[1-9]... | (?:(?:\+1|\b1)[ .\-]?)?(?:\(\d{3}\)[ .\-]?|\b\d{3}[ .\-])\d{3}[ .\-]\d{4}

// "(ddd)", an optional separator, ddd, a separator, dddd: the one
// North-American layout that starts with its parenthesis.
bool paren_nanp_may_start(std::string_view t, std::size_t s) {
  if (!digits_at(t, s + 1, 3) || !char_at(t, s + 4, ')')) return false;
  const std::size_t i = phone_separator_at(t, s + 5) ? s + 6 : s + 5;
  return digits_at(t, i, 3) && phone_separator_at(t, i + 3) && digits_at(t, i + 4, 4);
}

// "+" and [1-9], then a digit, a separator or "(" (every layout after "+1"
// and "+[1-9]").
start_candidate find_plus_start(std::string_view t, std::size_t pos) {
  for (std::size_t s = find_char(t, pos, '+'); s != npos; s = find_char(t, s + 1, '+')) {
    if (s + 2 >= t.size() || t[s + 1] < '1' || t[s + 1] > '9') continue;
    if (is_digit(t[s + 2]) || phone_separator_at(t, s + 2) || t[s + 2] == '(') return {s, kind_bit(phone_index)};
  }
  return {npos, 0};
}

start_candidate find_paren_start(std::string_view t, std::size_t pos) {
  for (std::size_t s = find_char(t, pos, '('); s != npos; s = find_char(t, s + 1, '(')) {
    if (paren_nanp_may_start(t, s)) return {s, kind_bit(phone_index)};
  }
  return {npos, 0};
}

// ---- card, ssn, phone and ipv4 starting with a digit: all begin with \b.

// 128 bits of byte flags: a 64-byte block, then the next one for look-ahead.
// Bit k is byte k; x >> j asks about the byte j further on (j < 64).
struct bits128 {
  std::uint64_t lo, hi;
  constexpr bits128(std::uint64_t here, std::uint64_t next) : lo(here), hi(next) {}
  friend constexpr bits128 operator>>(bits128 x, unsigned j) {
    return j == 0 ? x : bits128((x.lo >> j) | (x.hi << (64 - j)), x.hi >> j);
  }
  friend constexpr bits128 operator&(bits128 a, bits128 b) { return {a.lo & b.lo, a.hi & b.hi}; }
  friend constexpr bits128 operator|(bits128 a, bits128 b) { return {a.lo | b.lo, a.hi | b.hi}; }
  friend constexpr bits128 operator~(bits128 a) { return {~a.lo, ~a.hi}; }
};

struct digit_starts {
  std::uint64_t card, ssn, phone, ipv4;
};

// Each kind's layout over its first characters, tested at the 64 positions of
// block `c` at once; `n` is the block after it, for the look-ahead. Each
// layout is necessary for a match of that kind to start there; most are exact.
digit_starts find_digit_starts(const byte_classes& c, const byte_classes& n, bool word_before) {
  using bits = bits128;
  const auto join = [](std::uint64_t here, std::uint64_t next) { return bits(here, next); };
  const bits d = join(c.digit, n.digit), dot = join(c.dot, n.dot), paren = join(c.paren, n.paren);
  const bits space_or_dash = join(c.space_or_dash, n.space_or_dash);  // [ \-]
  const bits separator = space_or_dash | dot;                         // [ .\-]
  const bits zero = join(c.zero, n.zero);
  const bits digits2 = d & d >> 1, digits3 = digits2 & d >> 2, digits4 = digits2 & digits2 >> 2;  // ddd... from k
  // A digit with a non-word character (or the start of the text) before it: \b.
  const std::uint64_t bound = c.digit & ~(c.word << 1 | (word_before ? 1 : 0));

  // dddd, an optional [ \-], then at least four more digits.
  const bits card = digits4 & (digits4 >> 4 | (space_or_dash >> 4 & digits4 >> 5));
  // ddd-dd-dddd or ddd dd dddd (the two separators equal: the Set or the validator sees to that).
  const bits ssn = digits3 & space_or_dash >> 3 & digits2 >> 4 & space_or_dash >> 6 & digits4 >> 7;
  // Two groups of 1-3 digits, each with its dot: `dotted` is a group's
  // digits after its first then the dot (".", "d.", "dd." from k + 1).
  const bits dotted = dot >> 1 | (d >> 1 & dot >> 2) | (digits2 >> 1 & dot >> 3);
  const bits group = d & dotted;
  const bits ipv4 = (dot >> 1 & group >> 2) | (d >> 1 & dot >> 2 & group >> 3) | (digits2 >> 1 & dot >> 3 & group >> 4);
  // \b00[1-9]; ddd-ddd-dddd; or "1" then "(ddd", a separator and "(ddd",
  // a separator and "ddd-", or "ddd-" (the North-American layouts).
  const bits international = zero & zero >> 1 & d >> 2 & ~(zero >> 2);
  const bits nanp = digits3 & separator >> 3 & digits3 >> 4 & separator >> 7 & digits4 >> 8;
  const bits after_one = (paren >> 1 & digits3 >> 2) | (separator >> 1 & paren >> 2 & digits3 >> 3) |
                         (separator >> 1 & digits3 >> 2 & separator >> 5) | (digits3 >> 1 & separator >> 4);
  const bits phone = international | nanp | (join(c.one, n.one) & after_one);

  const auto here = [&](bits x) { return bound & x.lo; };
  return {here(card), here(ssn), here(phone), here(ipv4)};
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

// The first colon at or after `from` with another within the five bytes after
// it. The first colon of every match has one ("::", or groups of at most four
// hex digits between colons), so lone colons ("key: value", "10:30") are
// passed over 64 bytes at a time.
std::size_t find_paired_colon(std::string_view t, std::size_t from) {
  std::uint64_t colons = from < t.size() ? char_bits(t, from - from % 64, ':') : 0;
  for (std::size_t base = from - from % 64; base < t.size(); base += 64) {
    const std::uint64_t next = char_bits(t, base + 64, ':');
    const bits128 both(colons, next);
    std::uint64_t paired = colons & (both >> 1 | both >> 2 | both >> 3 | both >> 4 | both >> 5).lo;
    if (base < from) paired &= ~std::uint64_t{0} << (from - base);
    if (paired != 0) return base + static_cast<std::size_t>(std::countr_zero(paired));
    colons = next;
  }
  return npos;
}

// A match starts at most four characters before its first colon, which is a
// paired one; each of those few positions gets the bounded test above, so a
// long run of colons costs no more per byte than a short one.
start_candidate find_ipv6_start(std::string_view t, std::size_t pos) {
  std::size_t lowest = pos;  // positions below were tested for an earlier colon
  for (std::size_t colon = find_paired_colon(t, pos); colon != npos; colon = find_paired_colon(t, colon + 1)) {
    for (std::size_t s = std::max(lowest, colon >= 4 ? colon - 4 : 0); s <= colon; ++s) {
      if (ipv6_may_start(t, s)) return {s, kind_bit(ipv6_index)};
    }
    lowest = colon + 1;
  }
  return {npos, 0};
}

}  // namespace

start_finder::start_finder(std::string_view text, kind_set enabled) : text_(text), enabled_(enabled) {
  constexpr kind_set digit_kinds =
      kind_bit(card_index) | kind_bit(ssn_index) | kind_bit(phone_index) | kind_bit(ipv4_index);
  const struct {
    kind_set kinds;
    find_fn find;
  } all[] = {
      {token_bit, &start_finder::find_token},
      {kind_bit(email_index), &start_finder::find_email},
      {kind_bit(phone_index), &start_finder::find_plus},
      {kind_bit(phone_index), &start_finder::find_paren},
      {digit_kinds, &start_finder::find_digit},
      {kind_bit(ipv6_index), &start_finder::find_ipv6},
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
      s.found = (this->*s.find)(pos);
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

start_candidate start_finder::find_token(std::size_t pos) {
  return find_token_start(text_, pos);
}
start_candidate start_finder::find_email(std::size_t pos) {
  return find_email_start(text_, pos);
}
start_candidate start_finder::find_plus(std::size_t pos) {
  return find_plus_start(text_, pos);
}
start_candidate start_finder::find_paren(std::size_t pos) {
  return find_paren_start(text_, pos);
}
start_candidate start_finder::find_ipv6(std::size_t pos) {
  return find_ipv6_start(text_, pos);
}

void start_finder::scan_digit_block(std::size_t base) {
  const bool word_before = base > 0 && is_word(text_[base - 1]);
  // Moving on to the next block, its classes are already there.
  const byte_classes here = block_.base + 64 == base ? block_.next : classify_block(text_, base);
  block_.next = classify_block(text_, base + 64);
  const digit_starts found = find_digit_starts(here, block_.next, word_before);
  const auto on = [&](std::size_t kind, std::uint64_t bits) { return (enabled_ & kind_bit(kind)) ? bits : 0; };
  block_.base = base;
  block_.card = on(card_index, found.card);
  block_.ssn = on(ssn_index, found.ssn);
  block_.phone = on(phone_index, found.phone);
  block_.ipv4 = on(ipv4_index, found.ipv4);
}

start_candidate start_finder::find_digit(std::size_t pos) {
  for (std::size_t base = pos - pos % 64; base < text_.size(); base += 64) {
    if (block_.base != base) scan_digit_block(base);
    const std::uint64_t from = base < pos ? ~std::uint64_t{0} << (pos - base) : ~std::uint64_t{0};
    const std::uint64_t any = (block_.card | block_.ssn | block_.phone | block_.ipv4) & from;
    if (any == 0) continue;
    const auto k = static_cast<unsigned>(std::countr_zero(any));
    const auto has = [&](std::uint64_t bits) { return (bits >> k & 1) != 0; };
    return {base + k, (has(block_.card) ? kind_bit(card_index) : 0) | (has(block_.ssn) ? kind_bit(ssn_index) : 0) |
                          (has(block_.phone) ? kind_bit(phone_index) : 0) |
                          (has(block_.ipv4) ? kind_bit(ipv4_index) : 0)};
  }
  return {npos, 0};
}

}  // namespace harness::pii::detail
