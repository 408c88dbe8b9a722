// The one way this server reads JSON that it did not write itself: request
// bodies, /mcp messages, frames from the sandbox, MCP servers' messages, LLM
// replies, OAuth documents, the key, policy and config files.
//
// nlohmann's parser is iterative, but copying, comparing and dumping a value
// recurse once per level: a 1 MiB body of 400,000 nested arrays parses fine
// and then overflows the stack of whoever touches it. So every value read from
// outside is limited in depth while it is parsed, before anything can touch it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace harness::core {

// Arrays and objects nested more than this many levels deep are refused. No
// protocol this server speaks comes near it (MCP tool schemas nest a dozen
// levels); 256 levels of recursion take a few tens of KiB of stack.
inline constexpr std::size_t max_json_depth = 256;

// Parses `text` as one JSON value (whitespace around it is fine), as
// nlohmann::json::parse(text, nullptr, false) does, but refuses nesting past
// `max_depth`. On failure returns a discarded value (is_discarded()) and, when
// `why` is given, stores a one-line reason there: nlohmann's syntax error, or
// "JSON nests deeper than 256 levels of arrays and objects (at byte offset N)".
// Never throws for bad input.
nlohmann::json parse_json(std::string_view text, std::string* why = nullptr, std::size_t max_depth = max_json_depth);

}  // namespace harness::core
