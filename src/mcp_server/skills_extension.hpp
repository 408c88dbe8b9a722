// The Skills extension (io.modelcontextprotocol/skills, written against MCP
// 2026-07-28): the acting user's skills as skill entries a client can list,
// get and verify. An entry names the skill's SKILL.md
// (skill://<name>/SKILL.md), its front matter as JSON, and every file of the
// folder with its size and sha256 digest; the files themselves are read with
// resources/read (skill_resources.hpp).
//
// A client checks that the front matter in the entry equals what a YAML 1.2
// parser makes of the file. This server reads a small YAML subset, so a
// skill is offered here only when its front matter is plain `key: text`
// lines whose meaning is certain (exact_front_matter), its name is a valid
// skill name (1-64 of a-z, 0-9 and single hyphens) and its description
// 1-1024 characters; the others stay resources only.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"

namespace harness::skills {
class skill_library;
}

namespace harness::mcp_server {

inline constexpr const char* skills_extension = "io.modelcontextprotocol/skills";

// The front matter of `skill_md` as a JSON object of strings, when every
// line of it is `key: value` with a value any YAML 1.2 parser reads as that
// same string (plain text that is no number, boolean or null and holds no
// YAML syntax, or quoted without escapes); nullopt otherwise.
std::optional<nlohmann::json> exact_front_matter(std::string_view skill_md);

// skills/list: {skills: [entry]} of the user's skills then the examples they
// do not shadow, in name order. Blocking (reads every file for its digest).
result<nlohmann::json> list_skill_entries(const skills::skill_library& library, const std::string& user_id);

// skills/get: {skill: entry} for the skill whose SKILL.md is `uri`. Errors:
// skill_not_found (also for a skill that cannot be offered here, saying why),
// invalid_skill_name. Blocking.
result<nlohmann::json> get_skill_entry(const skills::skill_library& library, const std::string& user_id,
                                       const std::string& uri);

}  // namespace harness::mcp_server
