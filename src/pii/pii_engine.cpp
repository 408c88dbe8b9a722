#include "pii_engine.hpp"

#include <algorithm>
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

result<pii_engine> pii_engine::compile(std::vector<kind_source> sources) {
  sources.insert(sources.begin(), kind_source{"token", std::string(token_shaped_pattern), nullptr});
  pii_engine engine;
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

bool pii_engine::next(std::string_view text, std::size_t& pos, std::vector<int>& scratch, std::size_t& kind,
                      std::size_t& start, std::size_t& end) const {
  const re2::StringPiece input(text.data(), text.size());
  re2::StringPiece m;
  while (pos <= text.size()) {
    if (!combined_->Match(input, pos, text.size(), RE2::UNANCHORED, &m, 1)) return false;
    start = static_cast<std::size_t>(m.data() - text.data());
    end = start + m.size();
    if (end == start) {  // a custom pattern such as \b matched nothing
      pos = start + 1;
      continue;
    }
    // Which kinds read the whole span? The Set gives them unordered; the
    // lowest index has priority.
    std::size_t first = kinds_.size();
    std::uint64_t tried = 0;  // kinds whose longest reading here is this span (first 64 kinds)
    if (exact_->Match(m, &scratch)) {
      std::sort(scratch.begin(), scratch.end());
      for (int i : scratch) {
        if (i < 64) tried |= std::uint64_t{1} << i;
        if (accept(static_cast<std::size_t>(i), text, start, end)) {
          first = static_cast<std::size_t>(i);
          break;
        }
      }
    }
    if (first < kinds_.size()) {
      kind = first;
      pos = end;
      return true;
    }
    // No reading of the longest span validates: a shorter value of another
    // kind may still start here (a card-shaped run that is really a phone).
    if (at_start_->Match(re2::StringPiece(text.data() + start, text.size() - start), &scratch)) {
      std::sort(scratch.begin(), scratch.end());
      for (int i : scratch) {
        if (i < 64 && (tried >> i & 1)) continue;  // the same span again: already refused
        re2::StringPiece alone;
        const auto& k = kinds_[static_cast<std::size_t>(i)];
        if (!k.alone->Match(input, start, text.size(), RE2::ANCHOR_START, &alone, 1) || alone.empty()) continue;
        std::size_t e = start + alone.size();
        if (e != end && accept(static_cast<std::size_t>(i), text, start, e)) {
          kind = static_cast<std::size_t>(i);
          end = e;
          pos = e;
          return true;
        }
      }
    }
    pos = start + 1;
  }
  return false;
}

}  // namespace harness::pii::detail
