// The compiled detection program behind pii_censor. One leftmost-longest RE2
// alternation of every enabled pattern finds candidate spans; an RE2::Set
// anchored at both ends then says which kinds match that span (cheaper than
// capture groups), and each kind's validator decides. When no reading of the
// span validates, an RE2::Set anchored at the start names the kinds worth
// retrying at that position with their own RE2.
//
// Finding the spans: when every pattern is a built-in, a start_finder names
// the few positions where a match can start and the kinds that can; the
// alternation runs anchored there, and a position only one kind can start at
// needs no Set. With custom patterns, the alternation's DFA scans the input
// unanchored, one call per candidate. Both ways find the same spans.
// Internal to the pii component.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <re2/re2.h>
#include <re2/set.h>

#include "builtin_detectors.hpp"
#include "harness/core/error.hpp"
#include "harness/pii/pii_censor.hpp"
#include "start_finder.hpp"

namespace harness::pii::detail {

struct kind_source {
  std::string name;
  std::string pattern;
  validator_fn validate;  // nullptr: every match counts (custom patterns)
};

struct kind_info {
  std::string name;        // "email", "custom_id", "token"
  std::string token_kind;  // "EMAIL", "CUSTOM_ID", "TOKEN"
  validator_fn validate = nullptr;
  std::unique_ptr<RE2> alone;  // this kind's pattern by itself
};

class pii_engine {
 public:
  // Kind 0 is always the token-shaped literal; the others follow in priority order.
  static constexpr std::size_t token_kind = 0;

  // `find_starts`: use a start_finder when every pattern is a built-in (tests
  // turn it off to compare against the unanchored scan).
  static result<pii_engine> compile(std::vector<kind_source> kinds, bool find_starts = true);

  // Calls on_match(kind, start, end) for each accepted value, left to right,
  // non-overlapping. Allocates at most once per call, not per match.
  template <class F>
  void scan(std::string_view text, F&& on_match) const {
    scan_state state{text, {}, {}};
    if (starts_) state.starts.emplace(text, starts_);
    std::size_t pos = 0, kind = 0, start = 0, end = 0;
    while (next(state, pos, kind, start, end)) on_match(kind, start, end);
  }

  const kind_info& kind(std::size_t i) const { return kinds_[i]; }
  std::size_t kind_count() const { return kinds_.size(); }

  // The alternation, for benchmarks that compare against a bare scan.
  const RE2& combined() const { return *combined_; }
  bool byte_mode() const { return bytes_; }
  // True when spans are found through a start_finder.
  bool finds_starts() const { return starts_ != 0; }
  std::vector<std::string> patterns() const;

 private:
  struct scan_state {
    std::string_view text;
    std::vector<int> scratch;            // for the Sets' answers
    std::optional<start_finder> starts;  // when finds_starts()
  };

  bool next(scan_state& state, std::size_t& pos, std::size_t& kind, std::size_t& start, std::size_t& end) const;
  // The next candidate span at or after pos, and the kinds that may read it
  // (kind_set over kind_by_bit_; all bits when unknown).
  bool find_span(scan_state& state, std::size_t pos, std::size_t& start, std::size_t& end, kind_set& may_be) const;
  // Picks the kind of the span [start, end) or of a shorter value at start.
  bool resolve(scan_state& state, kind_set may_be, std::size_t& kind, std::size_t start, std::size_t& end) const;
  bool accept(std::size_t kind, std::string_view text, std::size_t start, std::size_t end) const;

  std::vector<kind_info> kinds_;
  std::unique_ptr<RE2> combined_;
  std::unique_ptr<RE2::Set> exact_;                           // which kinds match a whole span
  std::unique_ptr<RE2::Set> at_start_;                        // which kinds match somewhere from a start
  bool bytes_ = false;                                        // compiled in Latin-1 mode (every pattern byte-safe)
  kind_set starts_ = 0;                                       // the start_finder's kinds; 0: scan unanchored
  std::array<std::size_t, builtin_count + 1> kind_by_bit_{};  // engine kind of each start_finder bit
};

// Options every pii regex is compiled with. `bytes`: Latin-1 mode, where the
// DFA steps over bytes instead of UTF-8 sequences (about 1.6x faster on
// PII-dense text); only for patterns for which it changes nothing (below).
RE2::Options pii_re2_options(bool bytes = false);

// True when a pattern matches exactly the same spans in Latin-1 mode as in
// UTF-8 mode: every construct in it matches ASCII bytes, or literal UTF-8
// sequences as whole sequences. `.`, negated classes and \D \S \W \p \P \C
// can match part of a multi-byte character in Latin-1 mode, so they are not.
bool byte_safe_pattern(std::string_view pattern);

// Checks a custom pattern's name and regex; the error names both and quotes RE2.
status check_custom_pattern(std::string_view name, std::string_view pattern);

// Names compare case-insensitively, since both become the same token kind.
bool same_name(std::string_view a, std::string_view b);

}  // namespace harness::pii::detail

namespace harness::pii {
struct pii_censor::impl {
  detail::pii_engine engine;
};
}  // namespace harness::pii
