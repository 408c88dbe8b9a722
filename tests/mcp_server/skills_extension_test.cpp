// The Skills extension on the face (skills_extension.hpp) with a real skill
// library on a temporary folder: which front matter is read exactly, the
// entries skills/list and skills/get give (digests and sizes of every file,
// the user's own skills and the examples they do not shadow, never another
// user's), the files read back through resources/read, and the skills that
// stay resources only. The SDK 2.4.0 SkillsClient verifies the same against
// the real server in sdk2_client_test.cjs.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>

#include "harness/mcp_server/mcp_face.hpp"
#include "harness/mcp_server/modern.hpp"
#include "harness/skills/skill_library.hpp"
#include "mcp_server/modern_fixture.hpp"
#include "mcp_server/sample_skills.hpp"
#include "skills/skills_test_support.hpp"
#include "skills_extension.hpp"

namespace harness::mcp_server {
namespace {

using namespace testing;
using skills::testing::skill_md;
using skills::testing::write_change;
using skills::testing::write_text;

TEST(SkillsFrontMatter, OnlyWhatAnyYamlParserReadsTheSameWay) {
  auto read = [](const std::string& lines) { return exact_front_matter("---\n" + lines + "---\n# body\n"); };
  EXPECT_EQ(read("name: csv-report\ndescription: Sums, counts and ranges of a CSV file.\n"),
            json({{"name", "csv-report"}, {"description", "Sums, counts and ranges of a CSV file."}}));
  EXPECT_EQ(read("name: 'a-b'\r\ndescription: \"Quoted: fine\"\r\nlicense: MIT\r\n"),
            json({{"name", "a-b"}, {"description", "Quoted: fine"}, {"license", "MIT"}}));
  for (const char* unsure : {
           "name: a\ndescription: true\n",            // a boolean
           "name: a\ndescription: 1.5\n",             // a number
           "name: a\ndescription: ~\n",               // null
           "name: a\ndescription: x: y\n",            // a mapping
           "name: a\ndescription: text # comment\n",  // a comment
           "name: a\ndescription: >\n  folded\n",     // a block scalar
           "name: a\ndescription: [1, 2]\n",          // a sequence
           "name: a\ndescription: \"esc\\n\"\n",      // an escape
           "name: a\n  description: indented\n",      // nesting
           "name: a\nname: b\n",                      // a key twice
           "# a comment\nname: a\n",                  // a comment line
       }) {
    EXPECT_FALSE(read(unsure)) << unsure;
  }
  // Lines as long as a SKILL.md may hold are read without recursion (a stack overflow took the server down).
  EXPECT_FALSE(read("name: a\ndescription: " + std::string(300000, '7') + "\n"));
  EXPECT_FALSE(read(std::string(300000, 'k') + ": value\n"));
  EXPECT_EQ(
      (*read("name: a\ndescription: " + std::string(300000, 'x') + "\n"))["description"].get<std::string>().size(),
      300000u);
  for (const char* number : {"1", "-2", "+3.5", ".5", "5.", "1e5", "2.5E-3", "0o17", "0x1F", ".inf", "-.Inf", ".NaN"}) {
    EXPECT_FALSE(read(std::string("name: a\ndescription: ") + number + "\n")) << number;
  }
  for (const char* text : {"1.2.3", "0x", "e5", "v1", "1e", "0o9", "infinity"}) {
    EXPECT_TRUE(read(std::string("name: a\ndescription: ") + text + "\n")) << text;
  }
  EXPECT_FALSE(exact_front_matter("name: a\n"));                        // no opening line
  EXPECT_FALSE(exact_front_matter("---\nname: a\n"));                   // no closing line
  EXPECT_FALSE(exact_front_matter("\xEF\xBB\xBF---\nname: a\n---\n"));  // a byte order mark
}

class SkillsExtension : public McpModern {
 protected:
  void SetUp() override {
    library = sample_skills(
        temp.path() / "skills",
        {write_change("skills", "csv-report/report.js", "module.exports = 1;\n"),
         write_change("skills", "folded/SKILL.md", "---\nname: folded\ndescription: >\n  Folded text.\n---\n")});
    face = create_mcp_face(io.get_executor(), core::real_clock(),
                           {.tools = tools, .execution = execution, .skills = library}, config);
  }

  skills::testing::temp_folder temp;
  std::shared_ptr<skills::skill_library> library;
};

TEST_F(SkillsExtension, ListGivesEveryFileWithItsDigestAndGetTheSame) {
  auto discover = result_of(request(1, "server/discover"));
  EXPECT_EQ(discover["capabilities"]["extensions"][skills_extension], json({{"directoryRead", false}}));

  auto listed = result_of(request(2, "skills/list"));
  EXPECT_EQ(listed["ttlMs"], 0);
  EXPECT_EQ(listed["cacheScope"], "private");
  std::map<std::string, json> by_uri;
  for (const auto& skill : listed["skills"]) by_uri[skill["uri"]] = skill;
  // Alice's csv-report (not the example), the data-processor example; not folded (its front
  // matter is more YAML than is read exactly here), not bob's.
  ASSERT_EQ(by_uri.size(), 2u) << listed.dump();
  const json& mine = by_uri["skill://csv-report/SKILL.md"];
  EXPECT_EQ(mine["frontmatter"], json({{"name", "csv-report"}, {"description", "Mine."}}));
  std::map<std::string, json> files;
  for (const auto& file : mine["resources"]) files[file["uri"]] = file;
  ASSERT_TRUE(files.contains("skill://csv-report/report.js")) << mine.dump();
  EXPECT_EQ(files["skill://csv-report/report.js"]["size"], 20);
  // sha256sum of "module.exports = 1;\n"
  EXPECT_EQ(files["skill://csv-report/report.js"]["digest"],
            "sha256:6e66e366f0aefb84ad8110afcd9b2245702c643c831edf8316ff048fec739d2e");
  ASSERT_TRUE(files.contains("skill://csv-report/SKILL.md"));
  EXPECT_TRUE(by_uri.contains("skill://data-processor/SKILL.md"));

  auto got = result_of(request(3, "skills/get", {{"uri", "skill://csv-report/SKILL.md"}}));
  EXPECT_EQ(got["skill"], mine);
  EXPECT_EQ(got["cacheScope"], "private");
  // A file of the skill reads back byte for byte.
  auto read = result_of(request(4, "resources/read", {{"uri", "skill://csv-report/report.js"}}));
  EXPECT_EQ(read["contents"][0]["text"], "module.exports = 1;\n");
}

TEST_F(SkillsExtension, UnknownAndUnofferedSkillsAreInvalidParams) {
  for (const char* uri : {"skill://secret/SKILL.md", "skill://nope/SKILL.md", "skill://folded/SKILL.md",
                          "file:///etc/passwd", "skill://csv-report/report.js"}) {
    auto answer = send(request(5, "skills/get", {{"uri", uri}}));
    ASSERT_TRUE(answer && answer->contains("error")) << uri;
    EXPECT_EQ((*answer)["error"]["code"], -32602) << uri << " " << answer->dump();
  }
  auto why = send(request(6, "skills/get", {{"uri", "skill://folded/SKILL.md"}}));
  EXPECT_NE((*why)["error"]["message"].get<std::string>().find("not offered through the Skills extension"),
            std::string::npos);
  auto missing_file = send(request(7, "resources/read", {{"uri", "skill://csv-report/nope.js"}}));
  EXPECT_EQ((*missing_file)["error"]["code"], -32602);
  auto bobs_file = send(request(8, "resources/read", {{"uri", "skill://secret/SKILL.md"}}));
  EXPECT_EQ((*bobs_file)["error"]["code"], -32602);
}

}  // namespace
}  // namespace harness::mcp_server
