#include "harness/skills/file_rules.hpp"

#include <fmt/format.h>

#include "harness/core/ids.hpp"

namespace harness::skills {
namespace {

bool is_name_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

path_problem problem(std::string reason, std::string message) {
  return {std::move(reason), std::move(message)};
}

}  // namespace

std::optional<path_problem> check_relative_path(std::string_view path) {
  if (path.empty()) return problem("empty_segment", "the path is empty");
  // Control characters first: a NUL would cut the path short in any C API.
  for (unsigned char c : path) {
    if (c < 0x20 || c == 0x7f) {
      return problem("control_character", "the path contains a control character; use plain file names");
    }
  }
  if (path.front() == '/') {
    return problem("absolute_path", "absolute paths are not accepted; give a path relative to the folder");
  }
  if (path.size() > max_path_bytes) {
    return problem("path_too_long", fmt::format("the path is {} bytes; the limit is {}", path.size(), max_path_bytes));
  }
  std::size_t depth = 0;
  std::size_t start = 0;
  while (start <= path.size()) {
    auto slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view segment = path.substr(start, slash - start);
    ++depth;
    if (segment.empty()) return problem("empty_segment", "the path has an empty segment ('//' or a trailing '/')");
    if (segment == "..") return problem("parent_segment", "'..' is not allowed: paths cannot leave their folder");
    if (segment == ".") return problem("dot_segment", "'.' segments are not allowed; write the plain path");
    if (segment.size() > max_segment_bytes) {
      return problem("path_too_long", fmt::format("a name is longer than {} bytes", max_segment_bytes));
    }
    for (unsigned char c : segment) {
      if (!is_name_char(c)) {
        return problem("invalid_name",
                       fmt::format("'{}' has a character outside letters, digits, '.', '_' and '-'", segment));
      }
    }
    start = slash + 1;
  }
  if (depth > max_path_depth) {
    return problem("path_too_long", fmt::format("the path is {} folders deep; the limit is {}", depth, max_path_depth));
  }
  return std::nullopt;
}

bool is_skill_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c == '-' && i > 0);
    if (!ok) return false;
  }
  return true;
}

bool is_storage_id(std::string_view id) {
  return core::is_safe_id(id, 64) && id != "." && id != "..";
}

nlohmann::json apply_report::to_json() const {
  nlohmann::json refusals = nlohmann::json::array();
  for (const auto& r : refused) {
    refusals.push_back({{"path", r.path}, {"op", r.op}, {"reason", r.reason}, {"message", r.message}});
  }
  nlohmann::json out{{"written", written}, {"deleted", deleted}, {"refused", std::move(refusals)}};
  for (const auto& n : notes) out["notes"].push_back({{"path", n.path}, {"message", n.message}});
  return out;
}

}  // namespace harness::skills
