// The skill library on real temporary folders and on PostgreSQL rows (the
// users' skills; the examples are on disk in both): listing, isolation between
// users, the init frame's files, and what a sandbox may and may not write back.
#include <gtest/gtest.h>

#include <algorithm>

#include "harness/skills/errors.hpp"
#include "harness/skills/skill_library.hpp"
#include "skills/folder_backends.hpp"
#include "skills/skills_test_support.hpp"

namespace harness::skills {
namespace {

using namespace testing;
using json = nlohmann::json;

// The fixture of every test; `backend_kind()` says where the users' skills live.
class SkillLibraryBase : public ::testing::Test {
 protected:
  virtual backend backend_kind() const = 0;

  void SetUp() override {
    write_text(root() / "examples/data-processor/SKILL.md", skill_md("data-processor", "Summarises records."));
    write_text(root() / "examples/data-processor/index.js", "module.exports = {};\n");
    config.dir = root();
    config.caps = {.max_file_bytes = 1000, .max_total_bytes = 3000, .max_files = 6};
    storage = std::make_unique<folder_backend>(backend_kind());
    users = storage->open("skills", root() / "users");
    library = create_skill_library(config, users);
  }
  fs::path root() const { return temp.path() / "skills"; }
  fs::path user_dir(const std::string& user) const { return root() / "users" / user; }
  bool on_disk() const { return backend_kind() == backend::disk; }

  // Saves a skill through apply_changes, as a sandbox would.
  void save(const std::string& user, const std::string& name, const std::string& description = "Does a thing.") {
    auto report = library->apply_changes(user, {write_change("skills", name + "/SKILL.md", skill_md(name, description)),
                                                write_change("skills", name + "/index.js", "exports.x = 1;\n")});
    ASSERT_TRUE(report.refused.empty()) << report.to_json().dump();
  }

  static std::vector<std::string> names(const json& list) {
    std::vector<std::string> out;
    for (const auto& s : list) out.push_back(s["name"].get<std::string>() + ":" + s["owner"].get<std::string>());
    return out;
  }

  temp_folder temp;
  skill_config config;
  std::unique_ptr<folder_backend> storage;
  std::shared_ptr<folder_set> users;
  std::unique_ptr<skill_library> library;
};

// The contract: every backend. Symlinks planted on the host: disk only.
using SkillLibraryTest = on_each_backend<SkillLibraryBase>;
using SkillLibraryDiskTest = on_disk_only<SkillLibraryBase>;

INSTANTIATE_TEST_SUITE_P(Backends, SkillLibraryTest, all_backends,
                         [](const auto& param_info) { return backend_name(param_info.param); });

// The code that saves a description longer than the prompt shows hears so.
TEST_P(SkillLibraryTest, ALongDescriptionIsSavedWithANoteForTheCode) {
  auto report =
      library->apply_changes("alice", {write_change("skills", "big/SKILL.md", skill_md("big", std::string(400, 'd'))),
                                       write_change("skills", "small/SKILL.md", skill_md("small", "Short."))});
  ASSERT_TRUE(report.refused.empty()) << report.to_json().dump();
  ASSERT_EQ(report.notes.size(), 1u) << report.to_json().dump();
  EXPECT_EQ(report.notes[0].path, "big/SKILL.md");
  EXPECT_NE(report.notes[0].message.find("400 bytes"), std::string::npos) << report.notes[0].message;
  EXPECT_NE(report.notes[0].message.find("only its first 300"), std::string::npos) << report.notes[0].message;
  EXPECT_EQ(report.to_json()["notes"][0]["path"], "big/SKILL.md");
}

TEST_P(SkillLibraryTest, ListsTheUsersSkillsThenTheExamples) {
  save("alice", "csv-report", "Turns rows into a CSV report.");
  auto list = library->list("alice");
  ASSERT_TRUE(list) << list.error().describe();
  EXPECT_EQ(names(*list), (std::vector<std::string>{"csv-report:user", "data-processor:example"}));
  const auto& mine = (*list)[0];
  EXPECT_EQ(mine["description"], "Turns rows into a CSV report.");
  EXPECT_EQ(mine["files"], json::array({"SKILL.md", "index.js"}));
  EXPECT_TRUE(mine["updated"].get<std::string>().ends_with("Z"));
  EXPECT_FALSE(mine.contains("problem"));
}

TEST_P(SkillLibraryTest, UserBNeverSeesUserAsSkills) {
  save("alice", "secret-sauce");
  auto bob = library->list("bob");
  ASSERT_TRUE(bob);
  EXPECT_EQ(names(*bob), (std::vector<std::string>{"data-processor:example"}));
  auto get = library->get("bob", "secret-sauce");
  ASSERT_FALSE(get);
  EXPECT_EQ(get.error().code, harness::skills::errc::skill_not_found);
  auto removed = library->remove("bob", "secret-sauce");
  EXPECT_EQ(removed.error().code, harness::skills::errc::skill_not_found);
  for (const auto& f : library->init_files("bob")) EXPECT_EQ(f.path.find("secret-sauce"), std::string::npos) << f.path;
  EXPECT_TRUE(library->get("alice", "secret-sauce"));
}

TEST_P(SkillLibraryTest, AFolderWithoutValidSkillMdIsListedWithAProblem) {
  place(*users, "alice", "no-md/index.js", "1");
  place(*users, "alice", "bad-md/SKILL.md", "just text\n");
  place(*users, "alice", "renamed/SKILL.md", skill_md("other-name", "d"));
  place(*users, "alice", "Bad_Name/SKILL.md", skill_md("Bad_Name", "d"));
  auto list = library->list("alice");
  ASSERT_TRUE(list) << list.error().describe();
  std::map<std::string, std::string> problems;
  for (const auto& s : *list) problems[s["name"]] = s.value("problem", "");
  EXPECT_NE(problems["no-md"].find("no SKILL.md"), std::string::npos);
  EXPECT_NE(problems["bad-md"].find("does not start with a '---'"), std::string::npos);
  EXPECT_NE(problems["renamed"].find("other-name"), std::string::npos);
  EXPECT_NE(problems["Bad_Name"].find("not a valid skill name"), std::string::npos);
  EXPECT_EQ(problems["data-processor"], "");
}

TEST_P(SkillLibraryTest, GetReturnsSkillMdAndFiles) {
  save("alice", "csv-report");
  auto skill = library->get("alice", "csv-report");
  ASSERT_TRUE(skill) << skill.error().describe();
  EXPECT_EQ((*skill)["owner"], "user");
  EXPECT_EQ((*skill)["skillMd"], skill_md("csv-report", "Does a thing."));
  json files = json::array({{{"path", "SKILL.md"}, {"size", skill_md("csv-report", "Does a thing.").size()}},
                            {{"path", "index.js"}, {"size", 15}}});
  EXPECT_EQ((*skill)["files"], files);
  auto example = library->get("alice", "data-processor");
  ASSERT_TRUE(example);
  EXPECT_EQ((*example)["owner"], "example");
  EXPECT_EQ(library->get("alice", "Nope").error().code, harness::skills::errc::invalid_skill_name);
  EXPECT_EQ(library->get("..", "csv-report").error().code, harness::skills::errc::invalid_user_id);
  EXPECT_EQ(library->list("..").error().code, harness::skills::errc::invalid_user_id);
}

TEST_P(SkillLibraryTest, RemoveDeletesTheUsersSkillButNeverAnExample) {
  save("alice", "csv-report");
  ASSERT_TRUE(library->remove("alice", "csv-report"));
  EXPECT_FALSE(holds(*users, "alice", "csv-report"));
  EXPECT_EQ(library->remove("alice", "csv-report").error().code, harness::skills::errc::skill_not_found);
  auto example = library->remove("alice", "data-processor");
  ASSERT_FALSE(example);
  EXPECT_EQ(example.error().code, harness::skills::errc::skill_read_only);
  EXPECT_TRUE(fs::exists(root() / "examples/data-processor/index.js"));
  EXPECT_EQ(library->remove("alice", "../examples").error().code, harness::skills::errc::invalid_skill_name);
}

TEST_P(SkillLibraryTest, InitFilesCarryTheUsersSkillsAndExampleFilesTheExamples) {
  save("alice", "csv-report");
  std::map<std::string, std::string> by_path;
  for (auto& f : library->init_files("alice")) {
    EXPECT_EQ(f.root, "skills");
    by_path[f.path] = f.content;
  }
  EXPECT_EQ(by_path.size(), 2u);
  EXPECT_EQ(by_path["csv-report/index.js"], "exports.x = 1;\n");
  EXPECT_EQ(by_path["csv-report/SKILL.md"], skill_md("csv-report", "Does a thing."));
  std::map<std::string, std::string> examples;
  for (auto& f : library->example_files()) examples[f.path] = f.content;
  EXPECT_EQ(examples.size(), 2u);
  EXPECT_EQ(examples["examples/data-processor/index.js"], "module.exports = {};\n");
  EXPECT_TRUE(library->init_files("..").empty());
}

TEST_P(SkillLibraryTest, InitFilesLeaveOutWholeSkillsPastTheCaps) {
  // Placed by hand (a sandbox could not exceed the caps): 4 skills of 2 files, cap 6 files.
  for (std::string name : {"a", "b", "c", "d"}) {
    place(*users, "alice", name + "/SKILL.md", skill_md(name, "d"));
    place(*users, "alice", name + "/index.js", "1");
  }
  auto files = library->init_files("alice");
  std::set<std::string> skills;
  for (const auto& f : files) {
    if (!f.path.starts_with("examples/")) skills.insert(f.path.substr(0, f.path.find('/')));
  }
  EXPECT_EQ(skills, (std::set<std::string>{"a", "b", "c"}));
  EXPECT_EQ(files.size(), 6u);
}

TEST_P(SkillLibraryTest, ApplyRoundTripWritesUpdatesAndDeletes) {
  auto report = library->apply_changes("alice", {write_change("skills", "csv/SKILL.md", skill_md("csv", "d")),
                                                 write_change("skills", "csv/lib/parse.js", "v1"),
                                                 write_change("workspace", "ignored.txt", "not mine")});
  EXPECT_EQ(report.written, (std::vector<std::string>{"csv/SKILL.md", "csv/lib/parse.js"}));
  EXPECT_EQ(library->read_file("alice", "csv", "lib/parse.js").value(), "v1");
  report = library->apply_changes("alice", {write_change("skills", "csv/lib/parse.js", "v2")});
  EXPECT_EQ(report.written, (std::vector<std::string>{"csv/lib/parse.js"}));
  EXPECT_EQ(library->read_file("alice", "csv", "lib/parse.js").value(), "v2");
  report = library->apply_changes("alice", {delete_change("skills", "csv/lib/parse.js")});
  EXPECT_EQ(report.deleted, (std::vector<std::string>{"csv/lib/parse.js"}));
  EXPECT_FALSE(holds(*users, "alice", "csv/lib"));  // emptied folder pruned
  if (on_disk()) {
    EXPECT_FALSE(fs::exists(user_dir("alice") / "csv/lib"));
  }
  report = library->apply_changes("alice", {delete_change("skills", "csv/SKILL.md")});
  EXPECT_FALSE(holds(*users, "alice", "csv"));  // emptied skill folder removed
  EXPECT_EQ(library->get("alice", "csv").error().code, harness::skills::errc::skill_not_found);
  if (on_disk()) {
    EXPECT_FALSE(fs::exists(user_dir("alice") / "csv"));
    EXPECT_TRUE(fs::exists(user_dir("alice")));
  }
  // No temp file is left behind.
  for (const auto& entry : fs::recursive_directory_iterator(root())) {
    EXPECT_EQ(entry.path().filename().string().find('~'), std::string::npos) << entry.path();
  }
}

struct refused_case {
  bridge::file_change change;
  std::string reason;
};

void PrintTo(const refused_case& c, std::ostream* os) {
  *os << c.change.op << " -> " << c.reason;
}

class SkillWriteBack : public SkillLibraryBase,
                       public ::testing::WithParamInterface<std::tuple<backend, refused_case>> {
 protected:
  backend backend_kind() const override { return std::get<0>(GetParam()); }
  const bridge::file_change& change() const { return std::get<1>(GetParam()).change; }
  const std::string& reason() const { return std::get<1>(GetParam()).reason; }
};

TEST_P(SkillWriteBack, HostileEntryIsRefusedAndNothingOfItIsWritten) {
  auto before = library->list("alice").value();
  auto report = library->apply_changes("alice", {change(), write_change("skills", "ok/SKILL.md", "x")});
  ASSERT_EQ(report.refused.size(), 1u) << report.to_json().dump();
  EXPECT_EQ(report.refused[0].reason, reason()) << report.to_json().dump();
  EXPECT_EQ(report.refused[0].op, change().op);
  EXPECT_FALSE(report.refused[0].message.empty());
  EXPECT_EQ(report.written, (std::vector<std::string>{"ok/SKILL.md"}));  // the valid entry of the same exec is saved
  EXPECT_EQ(stored_paths(*users, "alice"), (std::vector<std::string>{"ok/SKILL.md"}));
  // The only file on the host below skills/ besides the examples is ok/SKILL.md (on disk).
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(temp.path())) {
    if (entry.is_regular_file()) files.push_back(entry.path().lexically_relative(temp.path()).string());
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> expected{"skills/examples/data-processor/SKILL.md",
                                    "skills/examples/data-processor/index.js"};
  if (on_disk()) expected.push_back("skills/users/alice/ok/SKILL.md");
  EXPECT_EQ(files, expected);
  // The examples are untouched.
  EXPECT_EQ(read_text(root() / "examples/data-processor/index.js"), "module.exports = {};\n");
}

bridge::file_change symlink_change(std::string path, std::string target) {
  bridge::file_change c;
  c.root = "skills";
  c.path = std::move(path);
  c.op = "symlink";
  c.target = std::move(target);
  return c;
}

bridge::file_change too_large_change(std::string path) {
  bridge::file_change c;
  c.root = "skills";
  c.path = std::move(path);
  c.op = "write";
  c.size = 50 << 20;
  c.too_large = true;
  return c;
}

INSTANTIATE_TEST_SUITE_P(
    Hostile, SkillWriteBack,
    ::testing::Combine(
        all_backends,
        ::testing::Values(
            refused_case{write_change("skills", "../x", "escape"), "parent_segment"},
            refused_case{write_change("skills", "/etc/passwd", "root::0:0"), "absolute_path"},
            refused_case{write_change("skills", "a/../../b", "escape"), "parent_segment"},
            refused_case{write_change("skills", "a/../../../../tmp/pwned", "escape"), "parent_segment"},
            refused_case{write_change("skills", "examples/data-processor/index.js", "hijack"), "read_only"},
            refused_case{write_change("skills", "examples/new-one/SKILL.md", "x"), "read_only"},
            refused_case{delete_change("skills", "examples/data-processor/index.js"), "read_only"},
            refused_case{write_change("skills", std::string("evil\0.js", 8), "x"), "control_character"},
            refused_case{write_change("skills", "loose.js", "x"), "not_in_skill"},
            refused_case{write_change("skills", "Bad_Name/index.js", "x"), "invalid_skill_name"},
            refused_case{write_change("skills", "a b/index.js", "x"), "invalid_name"},
            refused_case{symlink_change("csv/link", "/etc/passwd"), "symlink_refused"},
            refused_case{too_large_change("csv/huge.bin"), "too_large"},
            refused_case{write_change("skills", "csv/big.bin", std::string(1001, 'x')), "file_too_large"},
            refused_case{bridge::file_change{"skills", "csv/x", "chmod", "", 0, false, ""}, "unknown_op"})),
    [](const auto& param_info) {
      return backend_name(std::get<0>(param_info.param)) + "_" + std::to_string(param_info.index) + "_" +
             std::get<1>(param_info.param).reason;
    });

TEST_P(SkillLibraryTest, CapsOnTotalSizeAndFileCountPerUser) {
  // Total 3000 bytes: the third 1000-byte file of one exec goes past it (SKILL.md takes some room).
  auto report = library->apply_changes(
      "alice",
      {write_change("skills", "s/SKILL.md", "12345"), write_change("skills", "s/a", std::string(1000, 'a')),
       write_change("skills", "s/b", std::string(1000, 'b')), write_change("skills", "s/c", std::string(1000, 'c'))});
  EXPECT_EQ(report.written, (std::vector<std::string>{"s/SKILL.md", "s/a", "s/b"}));
  ASSERT_EQ(report.refused.size(), 1u);
  EXPECT_EQ(report.refused[0].path, "s/c");
  EXPECT_EQ(report.refused[0].reason, "total_size_exceeded");
  EXPECT_FALSE(holds(*users, "alice", "s/c"));
  // Deleting in the same exec makes room first.
  report = library->apply_changes(
      "alice", {write_change("skills", "s/c", std::string(1000, 'c')), delete_change("skills", "s/a")});
  EXPECT_EQ(report.written, (std::vector<std::string>{"s/c"}));
  EXPECT_EQ(report.deleted, (std::vector<std::string>{"s/a"}));
  // Six files at most: s/ holds 3, three more fit, the seventh does not.
  report = library->apply_changes("alice", {write_change("skills", "t/1", "1"), write_change("skills", "t/2", "2"),
                                            write_change("skills", "t/3", "3"), write_change("skills", "t/4", "4")});
  EXPECT_EQ(report.written.size(), 3u);
  ASSERT_EQ(report.refused.size(), 1u);
  EXPECT_EQ(report.refused[0].reason, "file_count_exceeded");
  // Another user has their own caps.
  EXPECT_TRUE(library->apply_changes("bob", {write_change("skills", "s/a", std::string(1000, 'a'))}).refused.empty());
}

TEST_F(SkillLibraryDiskTest, APreExistingHostSymlinkIsNeverFollowed) {
  fs::path outside = temp.path() / "outside";
  fs::create_directories(outside);
  fs::create_directories(user_dir("alice"));
  // A symlinked skill folder, a symlinked file and a symlinked user folder, all leading outside.
  fs::create_directory_symlink(outside, user_dir("alice") / "linked");
  write_text(user_dir("alice") / "real/SKILL.md", "x");
  write_text(outside / "target.txt", "outside");
  fs::create_symlink(outside / "target.txt", user_dir("alice") / "real/file.js");
  fs::create_directory_symlink(outside, user_dir("mallory"));

  auto report = library->apply_changes(
      "alice", {write_change("skills", "linked/index.js", "pwned"), write_change("skills", "real/file.js", "pwned"),
                delete_change("skills", "real/SKILL.md")});
  EXPECT_EQ(report.deleted, (std::vector<std::string>{"real/SKILL.md"}));
  ASSERT_EQ(report.refused.size(), 2u) << report.to_json().dump();
  EXPECT_EQ(report.refused[0].reason, "host_symlink");
  EXPECT_EQ(report.refused[1].reason, "host_symlink");
  auto mallory = library->apply_changes("mallory", {write_change("skills", "x/index.js", "pwned")});
  ASSERT_EQ(mallory.refused.size(), 1u);
  EXPECT_EQ(mallory.refused[0].reason, "host_symlink");
  // Nothing arrived outside, and the symlinked file still points where it did.
  EXPECT_EQ(std::distance(fs::directory_iterator(outside), fs::directory_iterator()), 1);
  EXPECT_EQ(read_text(outside / "target.txt"), "outside");
  EXPECT_TRUE(fs::is_symlink(user_dir("alice") / "real/file.js"));
  // Listing and init skip symlinks instead of following them.
  for (const auto& f : library->init_files("alice")) EXPECT_EQ(f.content.find("outside"), std::string::npos);
  EXPECT_EQ(library->list("mallory").error().code, harness::skills::errc::host_symlink);
}

TEST_P(SkillLibraryTest, AFileAndAFolderCannotShareAName) {
  auto report = library->apply_changes(
      "alice", {write_change("skills", "s/a", "file"), write_change("skills", "s/a/b", "under a file")});
  EXPECT_EQ(report.written, (std::vector<std::string>{"s/a"}));
  ASSERT_EQ(report.refused.size(), 1u);
  EXPECT_EQ(report.refused[0].reason, "path_conflict");
}

TEST_P(SkillLibraryTest, AnInvalidUserIdRefusesEverything) {
  auto report = library->apply_changes("..", {write_change("skills", "s/a", "x")});
  ASSERT_EQ(report.refused.size(), 1u);
  EXPECT_EQ(report.refused[0].reason, "invalid_user_id");
  EXPECT_FALSE(fs::exists(root() / "s"));
}

}  // namespace
}  // namespace harness::skills
