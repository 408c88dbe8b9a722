// start_finder: where a match of a built-in detector can start. A hand-written
// prefilter: the engine runs RE2 anchored at these few positions instead of
// letting its DFA read every byte and paying a forward and a reverse search for
// each candidate (docs/benchmarks/pii.md has the profile that motivated it).
//
// Contract: next(pos) returns the smallest q >= pos at which a match of an
// enabled built-in pattern may start, reading the text around q as RE2 does
// (a \b sees the byte before q), and a superset of the kinds that may start
// there. No match of an enabled kind starts anywhere in [pos, q). It knows the
// patterns of builtin_detectors.cpp by heart; start_finder_test.cpp checks the
// contract against RE2 at every position of many texts.
//
// Cost: for non-decreasing pos, each byte is read a bounded number of times:
// memchr for the rare characters ('[', '@', '+', '(', ':'), and for card,
// ssn, phone and ipv4 one pass that classifies 64 bytes at a time
// (byte_classes) and tests their layouts at all 64 positions at once.
// Internal to the pii component.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "builtin_detectors.hpp"
#include "byte_classes.hpp"

namespace harness::pii::detail {

// A set of kinds: bit i is builtin_detectors()[i], token_bit the token-shaped literal.
using kind_set = std::uint32_t;
constexpr kind_set kind_bit(std::size_t builtin) {
  return kind_set{1} << builtin;
}
inline constexpr kind_set token_bit = kind_set{1} << builtin_count;

struct start_candidate {
  std::size_t pos = 0;  // npos: no match starts at or after the position asked for
  kind_set kinds = 0;   // the kinds that may start at pos; never empty when pos != npos
};

class start_finder {
 public:
  static constexpr std::size_t npos = std::string_view::npos;

  // `enabled`: the kinds to look for; others are never reported. `text` must
  // outlive the finder.
  start_finder(std::string_view text, kind_set enabled);

  // Any order of pos gives correct answers; a non-decreasing one gives the cost above.
  start_candidate next(std::size_t pos);

 private:
  using find_fn = start_candidate (start_finder::*)(std::size_t pos);
  // One kind of trigger ('@', digits...), with its last answer kept until pos passes it.
  struct stream {
    find_fn find = nullptr;
    std::size_t asked = npos;  // the pos `found` answers; npos: not asked yet
    start_candidate found;
  };
  // Where card, ssn, phone and ipv4 may start in one 64-byte block (bit k:
  // at base + k), kept while pos is in it.
  struct digit_block {
    std::size_t base = npos;
    std::uint64_t card = 0, ssn = 0, phone = 0, ipv4 = 0;
    byte_classes next;  // of the block after it, which the look-ahead needed
  };

  start_candidate find_token(std::size_t pos);
  start_candidate find_email(std::size_t pos);
  start_candidate find_plus(std::size_t pos);
  start_candidate find_paren(std::size_t pos);
  start_candidate find_digit(std::size_t pos);
  start_candidate find_ipv6(std::size_t pos);
  void scan_digit_block(std::size_t base);

  std::string_view text_;
  kind_set enabled_;
  std::array<stream, 6> streams_;
  std::size_t stream_count_ = 0;
  digit_block block_;
};

}  // namespace harness::pii::detail
