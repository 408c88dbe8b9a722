// .env parsing, in the dialect most tools agree on (docker compose, dotenv).
#include <string>

#include "harness/core/settings.hpp"

namespace harness::core {
namespace {

std::string trim(const std::string& s) {
  auto begin = s.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return {};
  auto end = s.find_last_not_of(" \t\r");
  return s.substr(begin, end - begin + 1);
}

bool valid_key(const std::string& key) {
  if (key.empty() || (key[0] >= '0' && key[0] <= '9')) return false;
  for (char c : key) {
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

// Unquotes a value; `line_no` only feeds the error message.
result<std::string> parse_value(std::string raw, int line_no) {
  if (raw.empty()) return std::string{};
  char quote = raw[0];
  if (quote != '"' && quote != '\'') {
    // Unquoted: a " #" starts a comment.
    auto comment = raw.find(" #");
    if (comment != std::string::npos) raw = trim(raw.substr(0, comment));
    return raw;
  }
  auto close = raw.rfind(quote);
  if (close == 0) {
    return make_error(core::errc::invalid_dotenv, ".env line " + std::to_string(line_no) + ": unterminated quote",
                      "close the quote on the same line");
  }
  std::string inner = raw.substr(1, close - 1);
  if (quote == '\'') return inner;
  std::string out;
  for (std::size_t i = 0; i < inner.size(); ++i) {
    if (inner[i] == '\\' && i + 1 < inner.size()) {
      char next = inner[++i];
      out.push_back(next == 'n' ? '\n' : next == 't' ? '\t' : next);
    } else {
      out.push_back(inner[i]);
    }
  }
  return out;
}

}  // namespace

result<std::map<std::string, std::string>> parse_dotenv(const std::string& text) {
  std::map<std::string, std::string> values;
  std::size_t pos = 0;
  int line_no = 0;
  while (pos <= text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("export ", 0) == 0) line = trim(line.substr(7));
    auto eq = line.find('=');
    if (eq == std::string::npos) {
      return make_error(core::errc::invalid_dotenv, ".env line " + std::to_string(line_no) + ": expected KEY=VALUE",
                        "comment the line out with '#' or add '='");
    }
    std::string key = trim(line.substr(0, eq));
    if (!valid_key(key)) {
      return make_error(core::errc::invalid_dotenv,
                        ".env line " + std::to_string(line_no) + ": '" + key + "' is not a valid variable name");
    }
    auto value = parse_value(trim(line.substr(eq + 1)), line_no);
    if (!value) return value.error();
    values[key] = *value;
  }
  return values;
}

}  // namespace harness::core
