#include "oauth_challenge.hpp"

#include <cctype>

namespace harness::mcp {
namespace {

bool is_tchar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A cursor over one header value.
class reader {
 public:
  explicit reader(std::string_view text) : text_(text) {}
  bool done() const { return pos_ >= text_.size(); }
  char peek() const { return done() ? '\0' : text_[pos_]; }
  void skip_space() {
    while (!done() && (peek() == ' ' || peek() == '\t')) ++pos_;
  }
  void skip_commas() {
    while (!done() && (peek() == ',' || peek() == ' ' || peek() == '\t')) ++pos_;
  }
  std::string token() {
    const std::size_t start = pos_;
    while (!done() && is_tchar(peek())) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }
  // A quoted-string after its opening quote; backslash escapes a character.
  std::string quoted() {
    std::string out;
    ++pos_;
    while (!done() && peek() != '"') {
      if (peek() == '\\' && pos_ + 1 < text_.size()) ++pos_;
      out.push_back(text_[pos_++]);
    }
    if (!done()) ++pos_;  // the closing quote
    return out;
  }
  // token68: a token that may end in '=' padding.
  std::string token68_rest(std::string head) {
    while (!done() && (is_tchar(peek()) || peek() == '/' || peek() == '=')) head.push_back(text_[pos_++]);
    return head;
  }
  std::size_t mark() const { return pos_; }
  void reset(std::size_t to) { pos_ = to; }
  void skip_to_comma() {
    while (!done() && peek() != ',') ++pos_;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

void parse_value(std::string_view value, std::vector<auth_challenge>& out) {
  reader r(value);
  while (true) {
    r.skip_commas();
    if (r.done()) return;
    std::string scheme = r.token();
    if (scheme.empty()) {
      r.skip_to_comma();  // junk: move on to what may be the next challenge
      if (!r.done()) r.reset(r.mark() + 1);
      continue;
    }
    auth_challenge challenge;
    challenge.scheme = lower(scheme);
    r.skip_space();
    bool first = true;
    // Parameters, until a token not followed by '=' starts the next challenge.
    while (!r.done()) {
      const std::size_t before = r.mark();
      r.skip_commas();
      std::string name = r.token();
      r.skip_space();
      bool is_param = !name.empty() && r.peek() == '=';
      if (is_param) {
        r.reset(r.mark() + 1);
        r.skip_space();
        is_param = r.peek() != '=';  // "abc==" is a token68, not abc set to "="
      }
      if (is_param) {
        std::string param_value = r.peek() == '"' ? r.quoted() : r.token();
        challenge.params[lower(name)] = std::move(param_value);
        r.skip_space();
      } else if (first && !name.empty()) {
        r.reset(before);
        challenge.token68 = r.token68_rest(std::string());
        r.skip_space();
      } else {
        r.reset(before);
        break;
      }
      first = false;
    }
    out.push_back(std::move(challenge));
  }
}

}  // namespace

std::optional<std::string> auth_challenge::param(const std::string& name) const {
  auto it = params.find(name);
  if (it == params.end()) return std::nullopt;
  return it->second;
}

std::vector<auth_challenge> parse_www_authenticate(const std::vector<std::string>& values) {
  std::vector<auth_challenge> out;
  for (const auto& value : values) parse_value(value, out);
  return out;
}

std::optional<auth_challenge> bearer_challenge(const std::vector<auth_challenge>& challenges) {
  for (const auto& c : challenges) {
    if (c.scheme == "bearer") return c;
  }
  return std::nullopt;
}

std::vector<std::string> split_scopes(std::string_view scopes) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < scopes.size()) {
    const auto end = scopes.find(' ', pos);
    auto scope = scopes.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    if (!scope.empty()) out.emplace_back(scope);
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  return out;
}

std::string join_scopes(const std::vector<std::string>& scopes) {
  std::string out;
  for (const auto& s : scopes) {
    if (!out.empty()) out += ' ';
    out += s;
  }
  return out;
}

}  // namespace harness::mcp
