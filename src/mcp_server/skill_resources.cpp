#include "skill_resources.hpp"

#include <set>
#include <string_view>

#include "harness/core/base64.hpp"
#include "harness/core/utf8.hpp"
#include "harness/skills/errors.hpp"
#include "harness/skills/skill_library.hpp"

namespace harness::mcp_server {
namespace {

using json = nlohmann::json;

constexpr std::string_view scheme = "skill://";
constexpr std::string_view skill_md = "/SKILL.md";
constexpr const char* markdown = "text/markdown";

std::string uri_of(const std::string& name) {
  return std::string(scheme) + name + std::string(skill_md);
}

json resource_of(const json& skill) {
  const std::string name = skill.value("name", "");
  const bool example = skill.value("owner", "") == "example";
  std::string description = skill.value("description", "");
  if (example) description += description.empty() ? "(a shipped example)" : " (a shipped example)";
  return {{"uri", uri_of(name)},        {"name", name},         {"title", name},
          {"description", description}, {"mimeType", markdown}, {"annotations", {{"audience", {"assistant", "user"}}}}};
}

}  // namespace

result<json> list_skill_resources(const skills::skill_library& library, const std::string& user_id) {
  auto skills = library.list(user_id);
  if (!skills) return skills.error();
  json resources = json::array();
  std::set<std::string> own;
  for (const auto& s : *skills) {
    if (s.value("owner", "") == "user") own.insert(s.value("name", ""));
  }
  for (const auto& s : *skills) {
    if (s.contains("problem")) continue;  // no valid SKILL.md to show
    // An example the user has a skill of the same name for is not what
    // /skills/<name> holds (the user's is): leave it out, as get() does.
    if (s.value("owner", "") == "example" && own.contains(s.value("name", ""))) continue;
    resources.push_back(resource_of(s));
  }
  return json{{"resources", std::move(resources)}};
}

json skill_resource_templates() {
  return {{"resourceTemplates",
           {{{"uriTemplate", std::string(scheme) + "{name}" + std::string(skill_md)},
             {"name", "skill"},
             {"title", "A skill's SKILL.md"},
             {"description", "How to use one of your skills (or a shipped example), by its name"},
             {"mimeType", markdown}}}}};
}

result<json> read_skill_resource(const skills::skill_library& library, const std::string& user_id,
                                 const std::string& uri) {
  std::string_view rest(uri);
  const auto slash = rest.starts_with(scheme) ? rest.find('/', scheme.size()) : std::string_view::npos;
  // Not the skill's own SKILL.md (one in a subfolder is just another file).
  if (slash != std::string_view::npos && rest.substr(slash) != skill_md && slash > scheme.size() &&
      slash + 1 < rest.size()) {
    // Another file of the skill (the Skills extension lists them with their digests).
    const std::string name(rest.substr(scheme.size(), slash - scheme.size()));
    const std::string path(rest.substr(slash + 1));
    auto bytes = library.read_file(user_id, name, path);
    if (!bytes) return bytes.error();
    json content{{"uri", uri}, {"mimeType", "text/plain"}};
    if (core::utf8_valid(*bytes)) {
      content["text"] = std::move(*bytes);
    } else {
      content["mimeType"] = "application/octet-stream";
      content["blob"] = core::base64_encode(*bytes);
    }
    return json{{"contents", {std::move(content)}}};
  }
  if (!rest.starts_with(scheme) || !rest.ends_with(skill_md) || rest.size() <= scheme.size() + skill_md.size()) {
    return make_error(skills::errc::invalid_skill_name,
                      "this server's resources are skill://<name>/SKILL.md and the files of a skill; see "
                      "resources/list");
  }
  rest.remove_prefix(scheme.size());
  rest.remove_suffix(skill_md.size());
  auto skill = library.get(user_id, std::string(rest));
  if (!skill) return skill.error();
  if (!skill->contains("skillMd") || !(*skill)["skillMd"].is_string()) {
    return make_error(skills::errc::invalid_skill_md,
                      "skill " + std::string(rest) + " has no readable SKILL.md: " + skill->value("problem", ""));
  }
  return json{{"contents", {{{"uri", uri}, {"mimeType", markdown}, {"text", (*skill)["skillMd"]}}}}};
}

}  // namespace harness::mcp_server
