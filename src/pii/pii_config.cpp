#include "harness/pii/pii_config.hpp"
#include "harness/core/json_parse.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "harness/pii/pii_censor.hpp"

namespace harness::pii {
namespace {

const std::vector<std::string> all_detectors = {"email", "phone", "ssn", "card", "ipv4", "ipv6"};

std::string trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  auto e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

result<std::vector<std::pair<std::string, std::string>>> patterns_from_json(const nlohmann::json& j,
                                                                            const std::string& where) {
  if (!j.is_object()) {
    return make_error(core::errc::invalid_setting, where + ": expected a JSON object {\"name\": \"regex\"}");
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_string()) {
      return make_error(core::errc::invalid_setting, where + ": pattern '" + it.key() + "' must be a string");
    }
    out.emplace_back(it.key(), it.value().get<std::string>());
  }
  return out;
}

}  // namespace

std::vector<core::setting_spec> pii_setting_specs() {
  return {
      {"PII_DETECTORS", "all",
       "built-in PII detectors that are on: all, none, or a comma list of email,phone,ssn,card,ipv4,ipv6"},
      {"PII_PATTERNS_FILE", "", "JSON file of custom PII patterns {\"name\": \"RE2 regex\"}, read at start-up"},
      {"PII_CUSTOM_PATTERNS", "",
       "more custom PII patterns: a JSON object, or name=regex entries separated by ';' (\\x3B for a literal ';')"},
  };
}

result<std::vector<std::pair<std::string, std::string>>> parse_custom_patterns(const std::string& text) {
  std::string t = trim(text);
  if (t.empty()) return std::vector<std::pair<std::string, std::string>>{};
  if (t[0] == '{') {
    auto j = core::parse_json(t);
    if (j.is_discarded()) {
      return make_error(core::errc::invalid_setting, "PII_CUSTOM_PATTERNS: not valid JSON",
                        "write {\"name\": \"regex\"} or name=regex;name2=regex2");
    }
    return patterns_from_json(j, "PII_CUSTOM_PATTERNS");
  }
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t pos = 0;
  while (pos <= t.size()) {
    auto semi = t.find(';', pos);
    std::string entry =
        trim(std::string_view(t).substr(pos, semi == std::string::npos ? std::string::npos : semi - pos));
    pos = semi == std::string::npos ? t.size() + 1 : semi + 1;
    if (entry.empty()) continue;
    auto eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      return make_error(core::errc::invalid_setting, "PII_CUSTOM_PATTERNS: entry '" + entry + "' is not name=regex",
                        "separate entries with ';' and write a literal ';' inside a regex as \\x3B");
    }
    out.emplace_back(trim(entry.substr(0, eq)), entry.substr(eq + 1));
  }
  return out;
}

result<pii_config> load_pii_config(const core::settings& settings) {
  pii_config config;
  std::string detectors = trim(settings.get("PII_DETECTORS"));
  if (detectors == "none") {
    config.detectors.clear();
  } else if (detectors != "all" && !detectors.empty()) {
    config.detectors.clear();
    std::stringstream list(detectors);
    std::string name;
    while (std::getline(list, name, ',')) {
      name = trim(name);
      if (name.empty()) continue;
      if (std::find(all_detectors.begin(), all_detectors.end(), name) == all_detectors.end()) {
        return make_error(core::errc::invalid_setting, "PII_DETECTORS: unknown detector '" + name + "'",
                          "use all, none, or a comma list of email,phone,ssn,card,ipv4,ipv6");
      }
      config.detectors.push_back(name);
    }
  }

  if (const std::string& path = settings.get("PII_PATTERNS_FILE"); !path.empty()) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
      return make_error(core::errc::invalid_setting, "PII_PATTERNS_FILE: cannot read '" + path + "'",
                        "point it at a readable JSON file or leave it empty");
    }
    std::stringstream buffer;
    buffer << file.rdbuf();
    auto j = core::parse_json(buffer.str());
    if (j.is_discarded()) {
      return make_error(core::errc::invalid_setting, "PII_PATTERNS_FILE: '" + path + "' is not valid JSON",
                        "write {\"name\": \"RE2 regex\", ...}");
    }
    auto patterns = patterns_from_json(j, "PII_PATTERNS_FILE '" + path + "'");
    if (!patterns) return patterns.error();
    config.custom_patterns = std::move(*patterns);
  }

  auto env_patterns = parse_custom_patterns(settings.get("PII_CUSTOM_PATTERNS"));
  if (!env_patterns) return env_patterns.error();
  config.custom_patterns.insert(config.custom_patterns.end(), env_patterns->begin(), env_patterns->end());

  // Compile once here so that a bad pattern stops start-up with its name and RE2's message.
  auto builder = pii_censor_builder::from_config(config);
  if (!builder) return builder.error();
  if (auto built = builder->build(); !built) return built.error();
  return config;
}

}  // namespace harness::pii
