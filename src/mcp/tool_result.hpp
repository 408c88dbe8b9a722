// Turning MCP tool results into what sandbox code and HTTP callers see, and
// ranking tools for a search query. Pure functions, no I/O.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"

namespace harness::mcp {

// A CallToolResult -> the value callMCPTool returns: structuredContent if present,
// else the content array with each text item whose text is JSON replaced by the
// parsed value (other items as they are). A single content item is returned alone,
// not wrapped in an array. An isError result becomes error mcp_tool_error whose
// message is the tool's text. Each resource_link item gets `server` (when
// given), so that code can pass the link to readMCPResource as it is.
result<nlohmann::json> tool_result_value(nlohmann::json call_tool_result, const std::string& server = {});

// A resources/read result -> the value readMCPResource returns: its one
// contents item ({uri, mimeType?, text | blob}), or the array of them.
// Errors: mcp_bad_response when there is no contents array.
result<nlohmann::json> resource_contents_value(const nlohmann::json& read_result);

struct ranked_tool {
  std::string name;
  std::string description;
  double score = 0;
};

// Ranks tools by the query's words found in names (weighted higher) and
// descriptions. Words are split on anything but letters and digits, compared
// case-insensitively, and also match as prefixes ("dir" finds "directory").
// An empty query keeps all, sorted by name; otherwise score-0 tools are dropped.
std::vector<ranked_tool> rank_tools(const std::vector<ranked_tool>& tools, const std::string& query);

// The first sentence or line of a description, at most max_chars (for list()).
std::string short_description(const std::string& description, std::size_t max_chars = 200);

}  // namespace harness::mcp
