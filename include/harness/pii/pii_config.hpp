// Settings of the PII censor: which built-in detectors are on and which
// custom patterns to add (from a JSON file and from the environment).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "harness/core/error.hpp"
#include "harness/core/settings.hpp"

namespace harness::pii {

struct pii_config {
  // Built-in detectors that are on, by name, in the order given.
  std::vector<std::string> detectors = {"email", "phone", "ssn", "card", "ipv4", "ipv6"};
  // Custom patterns (name, RE2 regex): the file's first, then the environment's.
  std::vector<std::pair<std::string, std::string>> custom_patterns;
};

// PII_DETECTORS, PII_PATTERNS_FILE, PII_CUSTOM_PATTERNS.
std::vector<core::setting_spec> pii_setting_specs();

// Reads and checks the settings; reads PII_PATTERNS_FILE when set (start-up
// only). Fails (code "invalid_setting" or "invalid_pii_pattern") naming the
// setting, the pattern and RE2's message.
result<pii_config> load_pii_config(const core::settings& settings);

// Parses the PII_CUSTOM_PATTERNS syntax: either a JSON object {"name": "regex"}
// or `name=regex` entries separated by ';' (write a literal ';' in a regex as
// \x3B). Names are checked by the builder, not here.
result<std::vector<std::pair<std::string, std::string>>> parse_custom_patterns(const std::string& text);

}  // namespace harness::pii
