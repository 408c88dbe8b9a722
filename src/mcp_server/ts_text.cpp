#include "ts_text.hpp"

#include <algorithm>

#include "harness/core/utf8.hpp"

namespace harness::mcp_server {
namespace {

using nlohmann::json;

void trim_trailing_spaces(std::string& s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
}

// Stops at `limit` bytes and below 3 levels, so a huge or deep default costs nothing.
void append_short_json(std::string& out, const json& value, std::size_t limit, int depth) {
  if (!value.is_structured()) {
    out += json_text(value);
    return;
  }
  const bool array = value.is_array();
  out += array ? '[' : '{';
  bool first = true;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (out.size() >= limit || depth >= 3) {
      out += ellipsis;
      break;
    }
    if (!first) out += ',';
    first = false;
    if (!array) out += json_text(it.key()) + ':';
    append_short_json(out, *it, limit, depth + 1);
  }
  out += array ? ']' : '}';
}

}  // namespace

std::string clean_text(std::string_view s, std::size_t max_in, bool one_line) {
  std::string out;
  const std::size_t end = std::min(s.size(), max_in);
  for (std::size_t i = 0; i < end;) {
    const std::size_t n = core::utf8_sequence_length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    const std::string_view c = s.substr(i, n);
    i += n;
    if (c == "\r") continue;
    const auto b0 = static_cast<unsigned char>(c[0]);
    const bool control = b0 < 0x20 || b0 == 0x7F || (n == 2 && b0 == 0xC2 && static_cast<unsigned char>(c[1]) < 0xA0);
    if (c == "\n" && !one_line) {
      out += '\n';
    } else if (control || c == "\u2028" || c == "\u2029") {
      out += ' ';
    } else {
      out += c;
    }
  }
  if (!one_line) return out;
  std::string collapsed;  // runs of spaces become one; none at either end
  for (char ch : out) {
    if (ch == ' ' && (collapsed.empty() || collapsed.back() == ' ')) continue;
    collapsed += ch;
  }
  while (!collapsed.empty() && collapsed.back() == ' ') collapsed.pop_back();
  return collapsed;
}

std::size_t char_count(std::string_view s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::size_t offset_after_chars(std::string_view s, std::size_t n) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && n-- == 0) return i;
  }
  return s.size();
}

std::size_t char_boundary(std::string_view s, std::size_t limit) {
  return core::utf8_boundary(s, limit);
}

std::string cut_words(std::string_view s, std::size_t end) {
  std::size_t cut = s.find_last_of(" \n", end);
  if (cut == std::string_view::npos || cut < end / 2) cut = end;
  std::string out(s.substr(0, cut));
  trim_trailing_spaces(out);
  return out + std::string(ellipsis);
}

std::string cut_words_to_chars(std::string_view s, std::size_t max_chars) {
  if (char_count(s) <= max_chars) return std::string(s);
  if (max_chars == 0) return "";
  return cut_words(s, offset_after_chars(s, max_chars - 1));
}

std::string cut_type(std::string_view s, std::size_t end) {
  std::size_t cut = std::string_view::npos;
  for (std::size_t i = end; i > end / 2; --i) {
    if (i < s.size() && s[i] == ' ' && std::string_view(";,|&{([").find(s[i - 1]) != std::string_view::npos) {
      cut = i;
      break;
    }
  }
  if (cut == std::string_view::npos) cut = s.find_last_of(' ', end);
  if (cut == std::string_view::npos || cut < end / 2) cut = end;
  std::string_view kept = s.substr(0, cut);
  const std::size_t open = kept.rfind("/*");
  const std::size_t close = kept.rfind("*/");
  if (open != std::string_view::npos && (close == std::string_view::npos || close < open)) kept = kept.substr(0, open);
  std::string out(kept);
  trim_trailing_spaces(out);
  return out + " " + std::string(ellipsis);
}

std::string escape_comment_end(std::string s) {
  for (std::size_t at = s.find("*/"); at != std::string::npos; at = s.find("*/", at + 3)) s.replace(at, 2, "*\\/");
  return s;
}

std::string json_text(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string short_json(const json& value, std::size_t max_chars) {
  std::string out;
  append_short_json(out, value, 4 * max_chars, 0);
  return cut_words_to_chars(out, max_chars);
}

bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

bool is_identifier(std::string_view s) {
  return !s.empty() && !(s[0] >= '0' && s[0] <= '9') && std::all_of(s.begin(), s.end(), is_identifier_char);
}

std::string replace_odd_chars(std::string_view name, std::string_view extra) {
  std::string out(name.substr(0, max_name_bytes));
  for (char& c : out) {
    if (!is_identifier_char(c) && extra.find(c) == std::string_view::npos) c = '_';
  }
  return out;
}

std::vector<std::string> wrap(std::string_view text, std::size_t width) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string line;
    std::size_t line_chars = 0;
    for (std::size_t at = start; at < end;) {
      const std::size_t space = std::min(text.find(' ', at), end);
      const std::string_view word = text.substr(at, space - at);
      at = space + 1;
      if (word.empty()) continue;
      const std::size_t word_chars = char_count(word);
      if (!line.empty() && line_chars + 1 + word_chars > width) {
        lines.push_back(std::move(line));
        line.clear();
        line_chars = 0;
      }
      line += (line.empty() ? "" : " ") + std::string(word);
      line_chars += (line_chars == 0 ? 0 : 1) + word_chars;
    }
    if (!line.empty() || (!lines.empty() && !lines.back().empty())) lines.push_back(std::move(line));
    start = end + 1;
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

}  // namespace harness::mcp_server
