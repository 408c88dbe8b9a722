#include "pii_engine.hpp"

#include <algorithm>

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
  return std::all_of(name.begin(), name.end(),
                     [&](char c) { return alpha(c) || (c >= '0' && c <= '9') || c == '_'; });
}

}  // namespace

RE2::Options pii_re2_options() {
  RE2::Options options;
  options.set_longest_match(true);
  options.set_log_errors(false);
  // The alternation of every detector needs a large DFA cache; with the
  // default budget RE2 would fall back to the much slower NFA on big inputs.
  options.set_max_mem(std::int64_t{64} << 20);
  return options;
}

bool same_name(std::string_view a, std::string_view b) { return upper(a) == upper(b); }

status check_custom_pattern(std::string_view name, std::string_view pattern) {
  std::string quoted = "'" + std::string(name) + "'";
  if (!valid_name(name)) {
    return make_error("invalid_pii_pattern", "PII pattern name " + quoted + " is malformed",
                      "use a letter then letters, digits or '_', at most 32 characters");
  }
  bool reserved = same_name(name, "token");
  for (const auto& d : builtin_detectors()) reserved = reserved || same_name(name, d.name);
  if (reserved) {
    return make_error("invalid_pii_pattern", "PII pattern name " + quoted + " is taken by a built-in detector",
                      "pick another name; switch built-ins on or off with PII_DETECTORS");
  }
  RE2 re(re2::StringPiece(pattern.data(), pattern.size()), pii_re2_options());
  if (!re.ok()) {
    return make_error("invalid_pii_pattern", "PII pattern " + quoted + " does not compile: " + re.error(),
                      "write it in RE2 syntax (no look-around or back-references)");
  }
  if (RE2::PartialMatch("", re)) {
    return make_error("invalid_pii_pattern", "PII pattern " + quoted + " matches the empty string",
                      "make it require at least one character");
  }
  return {};
}

result<pii_engine> pii_engine::compile(std::vector<kind_source> sources) {
  sources.insert(sources.begin(), kind_source{"token", std::string(token_shaped_pattern), nullptr});
  pii_engine engine;
  std::string alternation;
  int group = 1;
  for (auto& src : sources) {
    kind_info info;
    info.name = src.name;
    info.token_kind = upper(src.name);
    info.validate = src.validate;
    info.alone = std::make_unique<RE2>(src.pattern, pii_re2_options());
    if (!info.alone->ok()) {
      return make_error("invalid_pii_pattern", "PII pattern '" + src.name + "' does not compile: " + info.alone->error());
    }
    info.group = group;
    group += 1 + info.alone->NumberOfCapturingGroups();
    if (!alternation.empty()) alternation += '|';
    alternation += "(" + src.pattern + ")";
    engine.kinds_.push_back(std::move(info));
  }
  engine.combined_ = std::make_unique<RE2>(alternation, pii_re2_options());
  if (!engine.combined_->ok()) {
    return make_error("invalid_pii_pattern", "the combined PII program does not compile: " + engine.combined_->error(),
                      "simplify or remove custom patterns");
  }
  engine.groups_ = engine.combined_->NumberOfCapturingGroups();
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

bool pii_engine::next(std::string_view text, std::size_t& pos, std::vector<re2::StringPiece>& groups,
                      std::size_t& kind, std::size_t& start, std::size_t& end) const {
  const re2::StringPiece input(text.data(), text.size());
  while (pos <= text.size()) {
    if (!combined_->Match(input, pos, text.size(), RE2::UNANCHORED, groups.data(), static_cast<int>(groups.size()))) {
      return false;
    }
    start = static_cast<std::size_t>(groups[0].data() - text.data());
    end = start + groups[0].size();
    if (end == start) {  // a custom pattern such as \b matched nothing
      pos = start + 1;
      continue;
    }
    std::size_t first = kinds_.size();
    for (std::size_t i = 0; i < kinds_.size(); ++i) {
      if (groups[static_cast<std::size_t>(kinds_[i].group)].data() != nullptr) {
        first = i;
        break;
      }
    }
    if (first < kinds_.size() && accept(first, text, start, end)) {
      kind = first;
      pos = end;
      return true;
    }
    // The longest reading failed its validator: another kind may still hold a
    // valid value at this start (a card-like run that is really a phone number).
    for (std::size_t i = 0; i < kinds_.size(); ++i) {
      if (i == first) continue;
      re2::StringPiece m;
      if (!kinds_[i].alone->Match(input, start, text.size(), RE2::ANCHOR_START, &m, 1) || m.empty()) continue;
      std::size_t e = start + m.size();
      if (accept(i, text, start, e)) {
        kind = i;
        end = e;
        pos = e;
        return true;
      }
    }
    pos = start + 1;
  }
  return false;
}

}  // namespace harness::pii::detail
