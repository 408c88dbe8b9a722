#include "text_tool_calls.hpp"

#include <algorithm>
#include <cctype>

namespace harness::llm {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<std::string> extract_javascript_block(std::string_view text) {
  std::size_t line_start = 0;
  while (line_start <= text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    std::string_view line = text.substr(line_start, line_end - line_start);
    std::string_view stripped = trim(line);
    for (std::string_view fence : {"```", "~~~"}) {
      if (stripped.substr(0, 3) != fence) continue;
      std::string tag = lower(trim(stripped.substr(3)));
      if (tag != "javascript" && tag != "js") continue;
      // The body runs to the next line that is only the same fence, or to the end.
      std::size_t body_start = std::min(line_end + 1, text.size());
      std::size_t pos = body_start;
      while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        if (trim(text.substr(pos, end - pos)) == fence) {
          std::string_view body = text.substr(body_start, pos - body_start);
          if (!body.empty() && body.back() == '\n') body.remove_suffix(1);
          return std::string(body);
        }
        pos = end + 1;
      }
      return std::string(text.substr(body_start));
    }
    if (line_end == text.size()) break;
    line_start = line_end + 1;
  }
  return std::nullopt;
}

}  // namespace harness::llm
