// The front matter of a SKILL.md: the `name` and `description` lines between
// a first line `---` and the next `---`. A small YAML subset on purpose: plain
// `key: value` lines, values optionally in single or double quotes, and
// indented continuation lines (also after `key: >` or `key: |`) joined with a
// space. Other keys are ignored.
#pragma once

#include <string>
#include <string_view>

#include "harness/core/error.hpp"

namespace harness::skills {

struct front_matter {
  std::string name;
  std::string description;
};

// Error "invalid_skill_md" whose message says what is missing, written for
// the person (or model) who will fix the file.
result<front_matter> parse_front_matter(std::string_view text);

}  // namespace harness::skills
