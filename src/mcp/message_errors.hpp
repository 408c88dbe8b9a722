// The errors both transports give for a message they cannot deliver, worded once:
// what was wrong with it and what to do. Which request such a message failed is
// the client's call (client.cpp), not the transport's.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"

namespace harness::mcp::detail {

// mcp_message_too_large: `bytes` (at least, when `at_least`) over the limit, naming the setting.
error message_too_large(const std::string& server, std::size_t bytes, std::size_t limit, bool at_least = false);

// mcp_bad_response: the text is not JSON; says where it breaks and how it starts.
error message_not_json(const std::string& server, std::string_view text, const std::string& parse_error);

// Parses one message (core::parse_json: nesting is limited); the error is the reason
// ("syntax error ... at line 1, column 9", or "JSON nests deeper than 256 levels ...").
result<nlohmann::json> parse_message(std::string_view text);

// The text with every byte that is not printable ASCII as '?', cut to `max` bytes ("..."
// marks a cut), for logs and errors.
std::string printable(std::string_view text, std::size_t max = 200);

}  // namespace harness::mcp::detail
