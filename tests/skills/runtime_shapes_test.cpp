// The runtime's real change reports (sandbox/runtime/files.js, driven by
// emit_file_changes.js) parsed by the bridge's own parser and applied by the
// skill library and the workspace store: the host-side rules meet exactly
// what a sandbox sends, hostile entries included.
#include <gtest/gtest.h>

#include "exec_files.hpp"
#include "frames.hpp"
#include "harness/core/base64.hpp"
#include "harness/skills/skill_library.hpp"
#include "harness/skills/workspace_store.hpp"
#include "skills/skills_test_support.hpp"
#include "support/child_process.hpp"

namespace harness::skills {
namespace {

using namespace testing;
using json = nlohmann::json;
using namespace std::chrono_literals;

std::map<std::string, std::string> reasons(const apply_report& report) {
  std::map<std::string, std::string> out;
  for (const auto& r : report.refused) out[r.path] = r.reason;
  return out;
}

TEST(RuntimeShapes, WhatTheRuntimeReportsIsValidatedAndApplied) {
  temp_folder temp;
  skill_config skills_config;
  skills_config.dir = temp.path() / "host-skills";
  write_text(skills_config.dir / "examples/data-processor/SKILL.md", skill_md("data-processor", "d"));
  write_text(skills_config.dir / "examples/data-processor/index.js", "module.exports = {};\n");
  write_text(skills_config.dir / "users/alice/old-skill/SKILL.md", skill_md("old-skill", "d"));
  write_text(skills_config.dir / "users/alice/old-skill/index.js", "1");
  auto library = create_skill_library(skills_config);
  workspace_config workspace_config;
  workspace_config.dir = temp.path() / "host-workspace";
  auto workspace = create_workspace_store(workspace_config);
  write_text(workspace_config.dir / "task_1/keep.txt", "kept");

  // The init frame's files, encoded as runtime_session encodes them.
  json init = json::array();
  auto files = library->example_files();
  auto own = library->init_files("alice");
  auto more = workspace->init_files("task_1");
  files.insert(files.end(), own.begin(), own.end());
  files.insert(files.end(), more.begin(), more.end());
  ASSERT_EQ(files.size(), 5u);
  for (const auto& f : files) {
    init.push_back(
        {{"root", f.root}, {"path", f.path}, {"content", core::base64_encode(f.content)}, {"encoding", "base64"}});
  }
  fs::path sandbox = temp.path() / "sandbox";
  write_text(sandbox / "init.json", init.dump());

  harness::testing::child_process node(
      {NODE_EXECUTABLE, harness::testing::source_path("tests/skills/emit_file_changes.js"), sandbox.string()});
  auto line = node.wait_for_output("{\"type\":\"done\"", 30s);
  ASSERT_TRUE(line) << node.output();
  ASSERT_EQ(node.wait_exit(30s), 0) << node.output();
  auto frame = bridge::parse_frame(line->substr(line->find('{')));
  ASSERT_TRUE(frame) << frame.error().message;
  std::vector<bridge::file_change> changes;
  for (const auto& entry : (*frame)["files"]) {
    auto change = bridge::parse_file_change(entry);
    ASSERT_TRUE(change) << entry.dump();
    changes.push_back(std::move(*change));
  }

  auto report = apply_exec_files(library.get(), workspace.get(), "alice", "task_1", changes);
  std::sort(report.skills.written.begin(), report.skills.written.end());
  EXPECT_EQ(report.skills.written, (std::vector<std::string>{"csv-report/SKILL.md", "csv-report/index.js"}));
  EXPECT_EQ(report.skills.deleted, (std::vector<std::string>{"old-skill/index.js"}));
  EXPECT_EQ(reasons(report.skills),
            (std::map<std::string, std::string>{{"examples/data-processor/index.js", "read_only"},
                                                {"csv-report/passwd", "symlink_refused"}}));
  EXPECT_EQ(report.workspace.written, (std::vector<std::string>{"out/result.json"}));
  EXPECT_EQ(reasons(report.workspace),
            (std::map<std::string, std::string>{
                {"big.bin", "too_large"}, {"bad name.txt", "invalid_name"}, {"root", "symlink_refused"}}));

  // On the host: the new skill, binary content intact, the example untouched.
  EXPECT_EQ(read_text(skills_config.dir / "users/alice/csv-report/index.js"),
            "module.exports = (rows) => rows.length;\n");
  EXPECT_EQ(read_text(workspace_config.dir / "task_1/out/result.json"), std::string("{}\0\xff", 4));
  EXPECT_EQ(read_text(skills_config.dir / "examples/data-processor/index.js"), "module.exports = {};\n");
  EXPECT_FALSE(fs::exists(skills_config.dir / "users/alice/csv-report/passwd"));
  EXPECT_FALSE(fs::exists(workspace_config.dir / "task_1/big.bin"));
  EXPECT_TRUE(fs::exists(workspace_config.dir / "task_1/keep.txt"));
  auto listed = library->list("alice").value();
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_EQ(listed[0]["name"], "csv-report");
  EXPECT_EQ(listed[0]["description"], "CSV.");
  EXPECT_EQ(listed[1]["name"], "old-skill");
  EXPECT_EQ(listed[1]["files"], json::array({"SKILL.md"}));
  EXPECT_EQ(listed[2]["owner"], "example");
}

}  // namespace
}  // namespace harness::skills
