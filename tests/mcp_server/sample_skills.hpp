// The skill library the face's skill tests share, on a temporary folder:
// two shipped examples (data-processor, csv-report), alice's own csv-report
// that shadows the example (plus `more_of_alice`), and bob's secret.
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "harness/skills/skill_library.hpp"
#include "skills/skills_test_support.hpp"

namespace harness::mcp_server::testing {

inline std::shared_ptr<skills::skill_library> sample_skills(const std::filesystem::path& dir,
                                                            std::vector<bridge::file_change> more_of_alice = {}) {
  using skills::testing::skill_md;
  using skills::testing::write_change;
  skills::skill_config folders;
  folders.dir = dir;
  skills::testing::write_text(dir / "examples/data-processor/SKILL.md",
                              skill_md("data-processor", "Summarises records."));
  skills::testing::write_text(dir / "examples/csv-report/SKILL.md", skill_md("csv-report", "The shipped one."));
  std::shared_ptr<skills::skill_library> library = skills::create_skill_library(folders);
  more_of_alice.insert(more_of_alice.begin(),
                       write_change("skills", "csv-report/SKILL.md", skill_md("csv-report", "Mine.")));
  library->apply_changes("alice", more_of_alice);
  library->apply_changes("bob", {write_change("skills", "secret/SKILL.md", skill_md("secret", "Bob's."))});
  return library;
}

}  // namespace harness::mcp_server::testing
