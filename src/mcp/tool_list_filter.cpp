#include "tool_list_filter.hpp"

#include <unordered_set>

#include "message_errors.hpp"

namespace harness::mcp::detail {
namespace {

using nlohmann::json;

constexpr std::size_t max_name_length = 128;
constexpr std::size_t shown_name_length = 64;
constexpr std::size_t names_in_log = 5;

bool allowed_in_name(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

std::string shown(char c) {
  if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
    constexpr const char* hex = "0123456789abcdef";
    const auto byte = static_cast<unsigned char>(c);
    return std::string("byte 0x") + hex[byte >> 4] + hex[byte & 0xf];
  }
  return std::string("'") + c + "'";
}

// The tool's name as a problem (empty when it has a usable one), and its name for the report.
std::pair<std::string, std::string> check(const json& tool) {
  if (!tool.is_object()) return {"not an object", printable(tool.dump(), shown_name_length)};
  if (!tool.contains("name")) return {"no name", ""};
  const json& name = tool["name"];
  if (!name.is_string()) return {"name is not a string", printable(name.dump(), shown_name_length)};
  const auto& text = name.get_ref<const std::string&>();
  return {tool_name_problem(text), printable(text, shown_name_length)};
}

}  // namespace

std::string tool_name_problem(std::string_view name) {
  if (name.empty()) return "empty name";
  if (name.size() > max_name_length) {
    return "name of " + std::to_string(name.size()) + " characters, over " + std::to_string(max_name_length);
  }
  for (char c : name) {
    if (!allowed_in_name(c)) return "name has " + shown(c) + "; only A-Z a-z 0-9 _ - . are allowed";
  }
  // Dots are allowed, but a name with ".." has no use as a name and a clear one as a
  // path segment (tool names end up in URLs, files and metric labels).
  if (name.find("..") != std::string_view::npos) return "name contains \"..\"";
  return {};
}

filtered_tools filter_tools(std::vector<json> listed, std::size_t max_tools) {
  filtered_tools out;
  out.dropped.limit = max_tools;
  std::unordered_set<std::string> seen;
  for (auto& tool : listed) {
    auto [problem, name] = check(tool);
    // A second tool of the same name: calls go by name, so the server decides which one
    // runs; the first keeps its place, as a lookup by name always found it.
    if (problem.empty() && !seen.insert(tool["name"].get<std::string>()).second) {
      problem = "duplicate of an earlier tool";
    }
    if (!problem.empty()) {
      if (out.dropped.rejected.size() < max_rejected_listed) out.dropped.rejected.push_back({name, problem});
      ++out.dropped.rejected_count;
    } else if (out.tools.size() < max_tools) {
      out.tools.push_back(std::move(tool));
    } else {
      ++out.dropped.over_limit;
    }
  }
  return out;
}

json to_json(const dropped_tools& dropped) {
  json out = {{"count", dropped.rejected_count + dropped.over_limit},
              {"invalidOrDuplicate", dropped.rejected_count},
              {"rejected", json::array()}};
  for (const auto& tool : dropped.rejected) out["rejected"].push_back({{"name", tool.name}, {"reason", tool.reason}});
  if (dropped.over_limit > 0) {
    out["overLimit"] = dropped.over_limit;
    out["limit"] = dropped.limit;
  }
  return out;
}

std::string describe(const dropped_tools& dropped) {
  std::string out = "dropped " + std::to_string(dropped.rejected_count + dropped.over_limit) + " tools:";
  if (dropped.over_limit > 0) {
    out += " " + std::to_string(dropped.over_limit) + " past the limit of " + std::to_string(dropped.limit) +
           " per server (MCP_MAX_TOOLS_PER_SERVER)" + (dropped.rejected_count > 0 ? ";" : "");
  }
  if (dropped.rejected_count > 0) {
    out += " " + std::to_string(dropped.rejected_count) + " invalid or duplicate";
    for (std::size_t i = 0; i < dropped.rejected.size() && i < names_in_log; ++i) {
      out += (i == 0 ? ": '" : ", '") + dropped.rejected[i].name + "' (" + dropped.rejected[i].reason + ")";
    }
    if (dropped.rejected_count > names_in_log) out += ", ...";
  }
  return out + " (see GET /health)";
}

}  // namespace harness::mcp::detail
