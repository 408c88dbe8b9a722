// One JSON Schema as a TypeScript type (the rules are in ts_signature.hpp),
// and the non-throwing readers of untrusted JSON the generator uses.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace harness::mcp_server {

// `schema` as a type, "unknown" when it is null. $refs resolve against
// `schema` itself. With `comments`, properties carry their description and
// default as /* ... */. The output stays near `budget` bytes: an object,
// union or tuple that would pass it ends in a "…" member instead, and so does
// everything after 20000 schemas walked (the bound on work). Never throws.
std::string schema_type(const nlohmann::json* schema, bool comments, std::size_t budget);

// The member `key` of `object`; null when `object` is not an object or has no such member.
const nlohmann::json* member(const nlohmann::json& object, const char* key);
// The same, when it is a string.
const std::string* string_member(const nlohmann::json& object, const char* key);

}  // namespace harness::mcp_server
