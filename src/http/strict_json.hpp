// A request body read as exactly one JSON value, more strictly than
// nlohmann::json::parse. Each leniency it removes would let this server and a
// proxy, gateway or client library in front of it read one body two ways:
// nlohmann stops at a NUL byte as if the text ended there, and keeps the last
// of two equal keys where other parsers keep the first or refuse.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"

namespace harness::http {

// One pass over `text`. Whitespace may surround the value; nothing else may.
// Fails with code
//   "malformed_json": not one JSON value: a syntax error, or anything after the
//                     value (a NUL byte, a second value, stray bytes);
//   "invalid_body":   valid JSON this server still refuses: a key that appears
//                     twice in one object (named with its path, "files[2].path"),
//                     a number too large for a double ("1e400", 400 digits),
//                     or arrays and objects nested deeper than core::max_json_depth.
// Messages give 0-based byte offsets into `text` and say what to change.
result<nlohmann::json> parse_strict_json(std::string_view text);

}  // namespace harness::http
