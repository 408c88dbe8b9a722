#include "pii_engine.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>

#include "harness/pii/errors.hpp"

namespace harness::pii::detail {
namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 32) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (!alpha(name[0])) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return alpha(c) || (c >= '0' && c <= '9') || c == '_'; });
}

// The start_finder's kinds when every source is the token literal (always
// first) or a built-in pattern, each at most once; else 0. Fills in which
// engine kind each of those bits is.
kind_set start_finder_kinds(const std::vector<kind_source>& sources,
                            std::array<std::size_t, builtin_count + 1>& kind_by_bit) {
  const auto builtins = builtin_detectors();
  kind_set kinds = 0;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    std::size_t bit = builtin_count;  // token_bit
    if (i != pii_engine::token_kind) {
      auto it = std::find_if(builtins.begin(), builtins.end(),
                             [&](const builtin_detector& d) { return d.pattern == sources[i].pattern; });
      if (it == builtins.end()) return 0;
      bit = static_cast<std::size_t>(it - builtins.begin());
    }
    if (kinds & (kind_set{1} << bit)) return 0;
    kinds |= kind_set{1} << bit;
    kind_by_bit[bit] = i;
  }
  return kinds;
}

}  // namespace

RE2::Options pii_re2_options(bool bytes) {
  RE2::Options options;
  options.set_longest_match(true);
  if (bytes) options.set_encoding(RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  // The alternation of every detector needs a large DFA cache; with the
  // default budget RE2 would fall back to the much slower NFA on big inputs.
  options.set_max_mem(std::int64_t{64} << 20);
  return options;
}

bool byte_safe_pattern(std::string_view pattern) {
  auto at = [&](std::size_t i) { return i < pattern.size() ? pattern[i] : '\0'; };
  bool in_class = false;  // inside [...], where '.' is a literal
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\') {
      if (std::string_view("DSWpPCX").find(at(i + 1)) != std::string_view::npos) return false;
      ++i;  // an escaped character, e.g. \. or \[
    } else if (in_class) {
      if (c == '[' && at(i + 1) == ':' && at(i + 2) == '^') return false;  // [[:^alpha:]]
      if (c == ']') in_class = false;
    } else if (c == '[') {
      if (at(i + 1) == '^') return false;
      in_class = true;
      if (at(i + 1) == ']') ++i;  // "[]...]": the first ] is a literal
    } else if (c == '.') {
      return false;
    }
  }
  return true;
}

bool same_name(std::string_view a, std::string_view b) {
  return upper(a) == upper(b);
}

status check_custom_pattern(std::string_view name, std::string_view pattern) {
  std::string quoted = "'" + std::string(name) + "'";
  if (!valid_name(name)) {
    return make_error(pii::errc::invalid_pattern, "PII pattern name " + quoted + " is malformed",
                      "use a letter then letters, digits or '_', at most 32 characters");
  }
  bool reserved = same_name(name, "token");
  for (const auto& d : builtin_detectors()) reserved = reserved || same_name(name, d.name);
  if (reserved) {
    return make_error(pii::errc::invalid_pattern, "PII pattern name " + quoted + " is taken by a built-in detector",
                      "pick another name; switch built-ins on or off with PII_DETECTORS");
  }
  RE2 re(re2::StringPiece(pattern.data(), pattern.size()), pii_re2_options());
  if (!re.ok()) {
    return make_error(pii::errc::invalid_pattern, "PII pattern " + quoted + " does not compile: " + re.error(),
                      "write it in RE2 syntax (no look-around or back-references)");
  }
  if (RE2::PartialMatch("", re)) {
    return make_error(pii::errc::invalid_pattern, "PII pattern " + quoted + " matches the empty string",
                      "make it require at least one character");
  }
  return {};
}

result<pii_engine> pii_engine::compile(std::vector<kind_source> sources, bool find_starts) {
  sources.insert(sources.begin(), kind_source{"token", std::string(token_shaped_pattern), nullptr});
  pii_engine engine;
  if (find_starts) engine.starts_ = start_finder_kinds(sources, engine.kind_by_bit_);
  engine.bytes_ = std::all_of(sources.begin(), sources.end(),
                              [](const kind_source& src) { return byte_safe_pattern(src.pattern); });
  const RE2::Options options = pii_re2_options(engine.bytes_);
  engine.exact_ = std::make_unique<RE2::Set>(options, RE2::ANCHOR_BOTH);
  engine.at_start_ = std::make_unique<RE2::Set>(options, RE2::ANCHOR_START);
  std::string alternation;
  for (auto& src : sources) {
    kind_info info;
    info.name = src.name;
    info.token_kind = upper(src.name);
    info.validate = src.validate;
    info.alone = std::make_unique<RE2>(src.pattern, options);
    std::string why;
    if (!info.alone->ok() || engine.exact_->Add(src.pattern, &why) < 0 ||
        engine.at_start_->Add(src.pattern, &why) < 0) {
      return make_error(pii::errc::invalid_pattern, "PII pattern '" + src.name + "' does not compile: " +
                                                        (info.alone->ok() ? why : info.alone->error()));
    }
    if (!alternation.empty()) alternation += '|';
    alternation += "(?:" + src.pattern + ")";
    engine.kinds_.push_back(std::move(info));
  }
  engine.combined_ = std::make_unique<RE2>(alternation, options);
  if (!engine.combined_->ok() || !engine.exact_->Compile() || !engine.at_start_->Compile()) {
    return make_error(pii::errc::invalid_pattern,
                      "the combined PII program does not compile: " + engine.combined_->error(),
                      "simplify or remove custom patterns");
  }
  return engine;
}

std::vector<std::string> pii_engine::patterns() const {
  std::vector<std::string> out;
  for (const auto& k : kinds_) out.push_back(k.alone->pattern());
  return out;
}

bool pii_engine::accept(std::size_t kind, std::string_view text, std::size_t start, std::size_t end) const {
  const auto& k = kinds_[kind];
  return k.validate == nullptr || k.validate(text, start, end);
}

bool pii_engine::next(scan_state& state, std::size_t& pos, std::size_t& kind, std::size_t& start,
                      std::size_t& end) const {
  while (pos <= state.text.size()) {
    kind_set may_be = 0;
    if (!find_span(state, pos, start, end, may_be)) return false;
    if (end == start) {  // a custom pattern such as \b matched nothing
      pos = start + 1;
      continue;
    }
    if (resolve(state, may_be, kind, start, end)) {
      pos = end;
      return true;
    }
    pos = start + 1;
  }
  return false;
}

bool pii_engine::find_span(scan_state& state, std::size_t pos, std::size_t& start, std::size_t& end,
                           kind_set& may_be) const {
  const std::string_view text = state.text;
  const re2::StringPiece input(text.data(), text.size());
  re2::StringPiece m;
  if (!state.starts) {
    if (!combined_->Match(input, pos, text.size(), RE2::UNANCHORED, &m, 1)) return false;
    start = static_cast<std::size_t>(m.data() - text.data());
    end = start + m.size();
    may_be = ~kind_set{0};
    return true;
  }
  // No match starts between the finder's positions, so the first of them
  // where the alternation matches is where the unanchored scan would stop.
  for (auto c = state.starts->next(pos); c.pos != start_finder::npos; c = state.starts->next(c.pos + 1)) {
    if (combined_->Match(input, c.pos, text.size(), RE2::ANCHOR_START, &m, 1)) {
      start = c.pos;
      end = start + m.size();
      may_be = c.kinds;
      return true;
    }
  }
  return false;
}

bool pii_engine::resolve(scan_state& state, kind_set may_be, std::size_t& kind, std::size_t start,
                         std::size_t& end) const {
  const std::string_view text = state.text;
  std::uint64_t tried = 0;  // kinds whose longest reading here is this span (first 64 kinds)
  if (std::has_single_bit(may_be)) {
    // Only one built-in can start here, and some kind reads the whole span
    // (true of the built-ins: their \b's sit next to digits or letters of
    // the span), so the Set would name just this one.
    const std::size_t i = kind_by_bit_[static_cast<std::size_t>(std::countr_zero(may_be))];
    tried = std::uint64_t{1} << i;
    if (accept(i, text, start, end)) {
      kind = i;
      return true;
    }
  } else if (exact_->Match(re2::StringPiece(text.data() + start, end - start), &state.scratch)) {
    // Which kinds read the whole span? The Set gives them unordered; the
    // lowest index has priority.
    std::sort(state.scratch.begin(), state.scratch.end());
    for (int i : state.scratch) {
      if (i < 64) tried |= std::uint64_t{1} << i;
      if (accept(static_cast<std::size_t>(i), text, start, end)) {
        kind = static_cast<std::size_t>(i);
        return true;
      }
    }
  }
  // No reading of the longest span validates: a shorter value of another
  // kind may still start here (a card-shaped run that is really a phone).
  const re2::StringPiece input(text.data(), text.size());
  if (at_start_->Match(re2::StringPiece(text.data() + start, text.size() - start), &state.scratch)) {
    std::sort(state.scratch.begin(), state.scratch.end());
    for (int i : state.scratch) {
      if (i < 64 && (tried >> i & 1)) continue;  // the same span again: already refused
      re2::StringPiece alone;
      const auto& k = kinds_[static_cast<std::size_t>(i)];
      if (!k.alone->Match(input, start, text.size(), RE2::ANCHOR_START, &alone, 1) || alone.empty()) continue;
      std::size_t e = start + alone.size();
      if (e != end && accept(static_cast<std::size_t>(i), text, start, e)) {
        kind = static_cast<std::size_t>(i);
        end = e;
        return true;
      }
    }
  }
  return false;
}

}  // namespace harness::pii::detail
