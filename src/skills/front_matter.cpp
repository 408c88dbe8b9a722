#include "harness/skills/front_matter.hpp"

#include <map>

#include "harness/skills/errors.hpp"

namespace harness::skills {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string unquote(std::string_view value) {
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
    return std::string(value.substr(1, value.size() - 2));
  }
  return std::string(value);
}

error invalid(std::string message) {
  return make_error(skills::errc::invalid_skill_md, std::move(message),
                    "start SKILL.md with '---', then 'name: <name>' and 'description: <one line>', then '---'");
}

}  // namespace

std::optional<front_matter_block> split_front_matter(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 byte order mark
  std::size_t pos = 0;
  auto next_line = [&](std::string_view& line) {
    if (pos >= text.size()) return false;
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    line = text.substr(pos, end - pos);
    if (line.ends_with('\r')) line.remove_suffix(1);
    pos = end + 1;
    return true;
  };
  std::string_view line;
  if (!next_line(line) || trim(line) != "---") return std::nullopt;
  front_matter_block block;
  while (next_line(line)) {
    if (trim(line) == "---") {
      block.closed = true;
      break;
    }
    block.lines.push_back(line);
  }
  return block;
}

result<front_matter> parse_front_matter(std::string_view text) {
  auto block = split_front_matter(text);
  if (!block) return invalid("SKILL.md does not start with a '---' line");
  std::map<std::string, std::string> fields;
  std::string last_key;
  for (std::string_view line : block->lines) {
    if (trim(line).empty() || trim(line).front() == '#') continue;
    if ((line.front() == ' ' || line.front() == '\t') && !last_key.empty()) {
      std::string& value = fields[last_key];
      if (!value.empty()) value.push_back(' ');
      value += trim(line);
      continue;
    }
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    last_key = std::string(trim(line.substr(0, colon)));
    std::string_view value = trim(line.substr(colon + 1));
    fields[last_key] = (value == ">" || value == "|" || value == ">-" || value == "|-") ? "" : unquote(value);
  }
  const bool closed = block->closed;
  if (!closed) return invalid("the front matter of SKILL.md has no closing '---' line");
  front_matter out;
  out.name = fields["name"];
  out.description = fields["description"];
  if (out.name.empty()) return invalid("the front matter of SKILL.md has no 'name'");
  if (out.description.empty()) return invalid("the front matter of SKILL.md has no 'description'");
  return out;
}

}  // namespace harness::skills
