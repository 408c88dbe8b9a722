// Which of a server's listed tools the registry takes. Names must be what the MCP
// specification (2025-11-25, "Tool Names") says they SHOULD be: 1-128 characters
// of A-Z a-z 0-9 _ - . and unique within the server; we also refuse "..", and keep
// at most max_tools per server, so one server cannot flood the prompt or /tools.
// Nothing is left out silently: the result says what was dropped and why.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace harness::mcp::detail {

struct rejected_tool {
  std::string name;  // printable and cut short, for logs and /health
  std::string reason;
};

struct dropped_tools {
  std::size_t rejected_count = 0;       // invalid or duplicate
  std::vector<rejected_tool> rejected;  // the first of them, at most max_rejected_listed
  std::size_t over_limit = 0;           // valid tools past the limit
  std::size_t limit = 0;
  bool empty() const { return rejected_count == 0 && over_limit == 0; }
};

struct filtered_tools {
  std::vector<nlohmann::json> tools;  // in the server's order
  dropped_tools dropped;
};

inline constexpr std::size_t max_rejected_listed = 20;

// Why `name` cannot be a tool name; empty when it can.
std::string tool_name_problem(std::string_view name);

// Takes the valid tools in list order (the first of duplicate names), at most max_tools.
filtered_tools filter_tools(std::vector<nlohmann::json> listed, std::size_t max_tools);

// {count, invalidOrDuplicate, rejected: [{name, reason}], overLimit?, limit?} for /health.
nlohmann::json to_json(const dropped_tools& dropped);

// One line for the log: how many were dropped, why, the first few names.
std::string describe(const dropped_tools& dropped);

}  // namespace harness::mcp::detail
