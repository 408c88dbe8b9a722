// Parsing and writing of protocol frames (one JSON object per line).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/bridge/runtime_session.hpp"
#include "harness/core/error.hpp"

namespace harness::bridge {

// An object with a string "type"; otherwise a "protocol_error" saying what
// the line was (not JSON, invalid UTF-8, not an object...).
result<nlohmann::json> parse_frame(const std::string& line);

// One line of JSON (no newline). Invalid UTF-8 in strings is replaced, so a
// frame is always valid JSON.
std::string dump_frame(const nlohmann::json& frame);

// A `files` entry of a `done` frame; nullopt when it is malformed (the host
// validates paths, sizes and counts again before writing anything).
std::optional<file_change> parse_file_change(const nlohmann::json& entry);

}  // namespace harness::bridge
