#include "skills_extension.hpp"

#include <openssl/evp.h>

#include <array>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "harness/core/utf8.hpp"
#include "harness/skills/errors.hpp"
#include "harness/skills/front_matter.hpp"
#include "harness/skills/skill_library.hpp"

namespace harness::mcp_server {
namespace {

using json = nlohmann::json;

constexpr std::string_view scheme = "skill://";
constexpr std::string_view skill_md_path = "SKILL.md";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Hand-written scanners, not std::regex: GCC's recurses once per character
// matched, and a user's SKILL.md may hold a line long enough to overflow the
// stack of the thread that reads it.
bool digits(std::string_view s, bool (*is_digit)(char)) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!is_digit(c)) return false;
  }
  return true;
}
bool decimal(char c) {
  return c >= '0' && c <= '9';
}
bool octal(char c) {
  return c >= '0' && c <= '7';
}
bool hexadecimal(char c) {
  return decimal(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool core_float(std::string_view s) {
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) s.remove_prefix(1);
  const auto exponent = s.find_first_of("eE");
  std::string_view mantissa = s.substr(0, exponent);
  if (exponent != std::string_view::npos) {
    std::string_view power = s.substr(exponent + 1);
    if (!power.empty() && (power.front() == '-' || power.front() == '+')) power.remove_prefix(1);
    if (!digits(power, decimal)) return false;
  }
  const auto dot = mantissa.find('.');
  if (dot == std::string_view::npos) return digits(mantissa, decimal);
  const std::string_view whole = mantissa.substr(0, dot), fraction = mantissa.substr(dot + 1);
  if (whole.empty()) return digits(fraction, decimal);
  return digits(whole, decimal) && (fraction.empty() || digits(fraction, decimal));
}

// What YAML 1.2's core schema reads as something other than a string.
bool typed_scalar(std::string_view value) {
  for (const char* word :
       {"null", "Null", "NULL", "~",    "true", "True",  "TRUE",  "false", "False", "FALSE", ".nan",
        ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF"}) {
    if (value == word) return true;
  }
  if (value.starts_with("0o")) return digits(value.substr(2), octal);
  if (value.starts_with("0x")) return digits(value.substr(2), hexadecimal);
  return core_float(value);  // integers too
}

bool key_text(std::string_view key) {
  if (key.empty() || key.size() > 64 ||
      !(std::isalpha(static_cast<unsigned char>(key.front())) || key.front() == '_')) {
    return false;
  }
  for (char c : key) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  return true;
}

// A plain scalar that means exactly its text.
bool plain_text(std::string_view value) {
  if (value.empty() || std::string_view("-?:,[]{}#&*!|>'\"%@`").find(value.front()) != std::string_view::npos) {
    return false;
  }
  if (value.find(": ") != std::string_view::npos || value.find(" #") != std::string_view::npos || value.back() == ':' ||
      value.find('\t') != std::string_view::npos) {
    return false;
  }
  return !typed_scalar(value);
}

std::optional<std::string> scalar(std::string_view value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
    auto inner = value.substr(1, value.size() - 2);
    if (inner.find_first_of("\"\\") != std::string_view::npos) return std::nullopt;
    return std::string(inner);
  }
  if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') {
    auto inner = value.substr(1, value.size() - 2);
    if (inner.find('\'') != std::string_view::npos) return std::nullopt;
    return std::string(inner);
  }
  if (!plain_text(value)) return std::nullopt;
  return std::string(value);
}

std::size_t characters(std::string_view text) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < text.size(); ++count) {
    const auto n = core::utf8_sequence_length(text, i);
    i += n == 0 ? 1 : n;
  }
  return count;
}

// 1-64 of a-z and 0-9 in runs joined by single hyphens.
bool valid_skill_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || name.front() == '-' || name.back() == '-') return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '-' ? name[i - 1] == '-' : !((c >= 'a' && c <= 'z') || decimal(c))) return false;
  }
  return true;
}

std::string sha256_hex(std::string_view bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

std::string uri_of(const std::string& name, const std::string& path) {
  return std::string(scheme) + name + "/" + path;
}

// The entry of skill `name`, or why it cannot be offered.
result<json> entry_of(const skills::skill_library& library, const std::string& user_id, const std::string& name) {
  auto skill = library.get(user_id, name);
  if (!skill) return skill.error();
  auto not_offered = [&](const std::string& why) {
    return make_error(skills::errc::skill_not_found,
                      fmt::format("skill {} is not offered through the Skills extension: {}", name, why),
                      "read skill://" + name + "/SKILL.md as a resource instead");
  };
  if (!valid_skill_name(name)) return not_offered("its name is not 1-64 of a-z, 0-9 and single hyphens");
  if (!skill->contains("skillMd") || !(*skill)["skillMd"].is_string())
    return not_offered("it has no readable SKILL.md");
  auto front = exact_front_matter((*skill)["skillMd"].get<std::string>());
  if (!front) return not_offered("its front matter is more YAML than this server reads exactly");
  if (front->value("name", "") != name) return not_offered("the name in its front matter is not its folder's");
  const std::string description = front->value("description", "");
  if (description.empty() || characters(description) > 1024) {
    return not_offered("its description is empty or longer than 1024 characters");
  }
  json resources = json::array();
  for (const auto& file : skill->value("files", json::array())) {
    const std::string path = file.value("path", "");
    auto bytes = path == skill_md_path ? result<std::string>((*skill)["skillMd"].get<std::string>())
                                       : library.read_file(user_id, name, path);
    if (!bytes) return bytes.error();
    resources.push_back(
        {{"uri", uri_of(name, path)}, {"digest", "sha256:" + sha256_hex(*bytes)}, {"size", bytes->size()}});
  }
  return json{{"uri", uri_of(name, std::string(skill_md_path))},
              {"frontmatter", std::move(*front)},
              {"resources", std::move(resources)}};
}

}  // namespace

std::optional<json> exact_front_matter(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) return std::nullopt;  // a client refuses it too
  auto block = skills::split_front_matter(text);
  if (!block || !block->closed || !text.starts_with("---")) return std::nullopt;
  json fields = json::object();
  for (std::string_view line : block->lines) {
    if (trim(line).empty()) continue;
    const auto colon = line.find(": ");
    if (colon == std::string_view::npos) return std::nullopt;
    const std::string key(line.substr(0, colon));
    if (!key_text(key) || fields.contains(key)) return std::nullopt;
    auto value = scalar(trim(line.substr(colon + 2)));
    if (!value) return std::nullopt;
    fields[key] = std::move(*value);
  }
  if (fields.empty()) return std::nullopt;
  return fields;
}

result<json> list_skill_entries(const skills::skill_library& library, const std::string& user_id) {
  auto skills = library.list(user_id);
  if (!skills) return skills.error();
  std::set<std::string> own, listed;
  for (const auto& s : *skills) {
    if (s.value("owner", "") == "user") own.insert(s.value("name", ""));
  }
  json entries = json::array();
  for (const auto& s : *skills) {
    const std::string name = s.value("name", "");
    if (s.contains("problem") || (s.value("owner", "") == "example" && own.contains(name))) continue;
    if (!listed.insert(name).second) continue;
    auto entry = entry_of(library, user_id, name);
    if (entry) entries.push_back(std::move(*entry));  // one that cannot be offered stays a resource only
  }
  return json{{"skills", std::move(entries)}};
}

result<json> get_skill_entry(const skills::skill_library& library, const std::string& user_id, const std::string& uri) {
  std::string_view rest(uri);
  const std::string suffix = "/" + std::string(skill_md_path);
  if (!rest.starts_with(scheme) || !rest.ends_with(suffix) || rest.size() <= scheme.size() + suffix.size()) {
    return make_error(skills::errc::invalid_skill_name, "a skill's uri is skill://<name>/SKILL.md; see skills/list");
  }
  rest.remove_prefix(scheme.size());
  rest.remove_suffix(suffix.size());
  auto entry = entry_of(library, user_id, std::string(rest));
  if (!entry) return entry.error();
  return json{{"skill", std::move(*entry)}};
}

}  // namespace harness::mcp_server
