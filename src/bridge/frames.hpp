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

// Field readers that never throw. Frames come from untrusted code: a field
// that is missing or of another type reads as "" / false / 0, so a frame like
// {"type":"log","exec":null} is handled like any frame that fits no block.
std::string string_field(const nlohmann::json& frame, const char* key);
bool bool_field(const nlohmann::json& frame, const char* key);
std::size_t size_field(const nlohmann::json& frame, const char* key);

// One line of JSON (no newline). Invalid UTF-8 in strings is replaced, so a
// frame is always valid JSON.
std::string dump_frame(const nlohmann::json& frame);

// A `files` entry of a `done` frame; nullopt when it is malformed (the host
// validates paths, sizes and counts again before writing anything).
std::optional<file_change> parse_file_change(const nlohmann::json& entry);

}  // namespace harness::bridge
