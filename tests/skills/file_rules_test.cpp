// The shared path rules, the SKILL.md front matter parser and the settings.
#include <gtest/gtest.h>

#include "harness/skills/errors.hpp"
#include "harness/skills/file_rules.hpp"
#include "harness/skills/front_matter.hpp"
#include "harness/skills/skills_config.hpp"

namespace harness::skills {
namespace {

struct bad_path {
  std::string path;
  std::string reason;
};

// Names the case in test output instead of dumping the struct's bytes.
void PrintTo(const bad_path& p, std::ostream* os) {
  *os << p.reason;
}

class HostilePaths : public ::testing::TestWithParam<bad_path> {};

TEST_P(HostilePaths, AreRefusedWithTheRuleTheyBreak) {
  auto problem = check_relative_path(GetParam().path);
  ASSERT_TRUE(problem.has_value()) << GetParam().path;
  EXPECT_EQ(problem->reason, GetParam().reason) << GetParam().path;
  EXPECT_FALSE(problem->message.empty());
}

INSTANTIATE_TEST_SUITE_P(Paths, HostilePaths,
                         ::testing::Values(bad_path{"../x", "parent_segment"}, bad_path{"/etc/passwd", "absolute_path"},
                                           bad_path{"a/../../b", "parent_segment"}, bad_path{"a/..", "parent_segment"},
                                           bad_path{"..", "parent_segment"}, bad_path{"./a", "dot_segment"},
                                           bad_path{"a/./b", "dot_segment"}, bad_path{"", "empty_segment"},
                                           bad_path{"a//b", "empty_segment"}, bad_path{"a/", "empty_segment"},
                                           bad_path{std::string("a\0b", 3), "control_character"},
                                           bad_path{"a\nb", "control_character"},
                                           bad_path{"a\x7f", "control_character"}, bad_path{"a b", "invalid_name"},
                                           bad_path{"a\\..\\b", "invalid_name"},
                                           bad_path{"caf\xc3\xa9.txt", "invalid_name"}, bad_path{"x~", "invalid_name"},
                                           bad_path{"a:b", "invalid_name"},
                                           bad_path{std::string(600, 'a'), "path_too_long"},
                                           bad_path{std::string(129, 'a'), "path_too_long"},
                                           bad_path{"a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q", "path_too_long"}),
                         [](const ::testing::TestParamInfo<bad_path>& param_info) {
                           return std::to_string(param_info.index) + "_" + param_info.param.reason;
                         });

TEST(PathRules, AcceptPlainRelativePaths) {
  for (const char* ok : {"a", "csv-report/index.js", "x/y/z.json", ".hidden", "a..b", "...", "A_b-c.9",
                         "a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p"}) {
    EXPECT_FALSE(check_relative_path(ok).has_value()) << ok;
  }
}

TEST(PathRules, SkillNames) {
  for (const std::string& ok : std::vector<std::string>{"a", "csv-report", "x9", "0-a", std::string(64, 'a')}) {
    EXPECT_TRUE(is_skill_name(ok)) << ok;
  }
  for (const std::string& bad :
       std::vector<std::string>{"", "-a", "A", "a_b", "a.b", "a b", "examples/x", std::string(65, 'a')}) {
    EXPECT_FALSE(is_skill_name(bad)) << bad;
  }
}

TEST(PathRules, StorageIdsNeverNameTheParent) {
  EXPECT_TRUE(is_storage_id("user_1"));
  EXPECT_TRUE(is_storage_id("task_0123.x-y"));
  for (const std::string& bad : std::vector<std::string>{"", ".", "..", "a/b", "a b", std::string(65, 'a')})
    EXPECT_FALSE(is_storage_id(bad)) << bad;
}

TEST(ApplyReport, ToJson) {
  apply_report report;
  report.written = {"a/b.js"};
  report.refused.push_back({"../x", "write", "parent_segment", "no"});
  auto j = report.to_json();
  EXPECT_EQ(j["written"], nlohmann::json::array({"a/b.js"}));
  EXPECT_EQ(j["deleted"], nlohmann::json::array());
  EXPECT_EQ(j["refused"][0]["reason"], "parent_segment");
  EXPECT_EQ(j["refused"][0]["op"], "write");
}

TEST(FrontMatter, NameAndDescription) {
  auto f = parse_front_matter("---\nname: csv\ndescription: \"Reads CSV: fast\"\nversion: 2\n---\n# CSV\n");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->name, "csv");
  EXPECT_EQ(f->description, "Reads CSV: fast");
}

TEST(FrontMatter, CrLfBomAndFoldedDescription) {
  auto f = parse_front_matter("\xEF\xBB\xBF---\r\nname: 'x'\r\ndescription: >\r\n  first\r\n  second\r\n---\r\n");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->name, "x");
  EXPECT_EQ(f->description, "first second");
}

TEST(FrontMatter, SaysWhatIsMissing) {
  struct bad {
    const char* text;
    const char* fragment;
  };
  for (auto [text, fragment] : {bad{"# no front matter\n", "does not start"}, bad{"---\nname: a\n", "closing"},
                                bad{"---\ndescription: d\n---\n", "no 'name'"},
                                bad{"---\nname: a\n---\n", "no 'description'"}, bad{"", "does not start"}}) {
    auto f = parse_front_matter(text);
    ASSERT_FALSE(f) << text;
    EXPECT_EQ(f.error().code, harness::skills::errc::invalid_skill_md);
    EXPECT_NE(f.error().message.find(fragment), std::string::npos) << f.error().message;
  }
}

TEST(Duration, UnitsAndPlainSeconds) {
  using std::chrono::seconds;
  EXPECT_EQ(*parse_duration("24h"), seconds(86400));
  EXPECT_EQ(*parse_duration("30m"), seconds(1800));
  EXPECT_EQ(*parse_duration("90s"), seconds(90));
  EXPECT_EQ(*parse_duration("2d"), seconds(172800));
  EXPECT_EQ(*parse_duration("1h30m"), seconds(5400));
  EXPECT_EQ(*parse_duration("3600"), seconds(3600));
  for (const char* bad : {"", "h", "24x", "1h30", "-5", "1.5h", " 24h", "24 h", "99999999999999999999"}) {
    auto d = parse_duration(bad);
    ASSERT_FALSE(d) << bad;
    EXPECT_EQ(d.error().code, harness::skills::errc::invalid_duration);
  }
}

core::settings resolve(std::map<std::string, std::string> env) {
  auto specs = skills_setting_specs();
  core::setting_sources sources;
  sources.env = std::move(env);
  return core::settings::resolve(specs, sources).value();
}

TEST(SkillsSettings, Defaults) {
  auto config = load_skills_config(resolve({}));
  ASSERT_TRUE(config) << config.error().describe();
  EXPECT_EQ(config->skills.dir, "skills");
  EXPECT_EQ(config->workspace.dir, "workspace");
  EXPECT_EQ(config->workspace.retention, std::chrono::hours(24));
  EXPECT_EQ(config->workspace.sweep_interval(), std::chrono::hours(1));
  EXPECT_EQ(config->skills.caps.max_files, 200u);
  EXPECT_EQ(config->workspace.caps.max_total_bytes, 50u << 20);
}

TEST(SkillsSettings, ValuesAndErrorsNameTheSetting) {
  auto config = load_skills_config(
      resolve({{"WORKSPACE_RETENTION", "30m"}, {"SKILL_MAX_FILES", "7"}, {"SKILLS_DIR", "/srv/skills"}}));
  ASSERT_TRUE(config) << config.error().describe();
  EXPECT_EQ(config->workspace.retention, std::chrono::minutes(30));
  EXPECT_EQ(config->workspace.sweep_interval(), std::chrono::seconds(75));
  EXPECT_EQ(config->skills.caps.max_files, 7u);
  EXPECT_EQ(config->skills.dir, "/srv/skills");
  for (auto [name, value] : std::vector<std::pair<std::string, std::string>>{{"WORKSPACE_RETENTION", "soon"},
                                                                             {"WORKSPACE_RETENTION", "10s"},
                                                                             {"SKILL_MAX_FILES", "0"},
                                                                             {"WORKSPACE_MAX_FILE_BYTES", "big"},
                                                                             {"SKILLS_DIR", ""}}) {
    auto bad = load_skills_config(resolve({{name, value}}));
    ASSERT_FALSE(bad) << name;
    EXPECT_NE(bad.error().describe().find(name), std::string::npos) << bad.error().describe();
  }
  auto inverted = load_skills_config(resolve({{"SKILL_MAX_FILE_BYTES", "100"}, {"SKILL_MAX_TOTAL_BYTES", "10"}}));
  ASSERT_FALSE(inverted);
  EXPECT_NE(inverted.error().message.find("SKILL_MAX_FILE_BYTES"), std::string::npos);
}

}  // namespace
}  // namespace harness::skills
