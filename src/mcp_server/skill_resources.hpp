// The acting user's skills as MCP resources, so that a client can show them
// and a model can read how to use one before it writes code: each skill's
// SKILL.md as skill://<name>/SKILL.md (the user's own skills, then the shipped
// examples that no skill of the user shadows, as /skills in the sandbox has
// them). Read-only: skills are saved from code, under /skills.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"

namespace harness::skills {
class skill_library;
}

namespace harness::mcp_server {

// MCP's "resource not found" error code.
constexpr int resource_not_found = -32002;

// The result of resources/list: {resources: [{uri, name, title, description, mimeType}]}.
// Blocking (the library reads the disk): call it off the I/O thread.
result<nlohmann::json> list_skill_resources(const skills::skill_library& library, const std::string& user_id);

// The result of resources/templates/list: the one template, skill://{name}/SKILL.md.
nlohmann::json skill_resource_templates();

// The result of resources/read for `uri`: {contents: [{uri, mimeType, text}]}
// (`blob`, base64, for a file that is not UTF-8). `uri` is a skill's
// SKILL.md or, as the Skills extension lists them, another of its files
// (skill://<name>/<path>). An error whose message the client reads: not a
// skill:// URI (invalid_skill_name), no such skill (skill_not_found) or
// file (file_not_found). Blocking.
result<nlohmann::json> read_skill_resource(const skills::skill_library& library, const std::string& user_id,
                                           const std::string& uri);

}  // namespace harness::mcp_server
