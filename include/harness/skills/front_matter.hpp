// The front matter of a SKILL.md: the `name` and `description` lines between
// a first line `---` and the next `---`. A small YAML subset on purpose: plain
// `key: value` lines, values optionally in single or double quotes, and
// indented continuation lines (also after `key: >` or `key: |`) joined with a
// space. Other keys are ignored.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/core/error.hpp"

namespace harness::skills {

struct front_matter {
  std::string name;
  std::string description;
};

// Error "invalid_skill_md" whose message says what is missing, written for
// the person (or model) who will fix the file.
result<front_matter> parse_front_matter(std::string_view text);

// The lines of a SKILL.md's front matter block, each without "\n" and "\r":
// those after a first line `---`, up to the next line `---` (`closed`), or
// to the end when there is none. nullopt when the first line is not `---`.
// A UTF-8 byte order mark before it is skipped.
struct front_matter_block {
  std::vector<std::string_view> lines;
  bool closed = false;
};
std::optional<front_matter_block> split_front_matter(std::string_view text);

}  // namespace harness::skills
