// /skills and /tasks/{id}/files through the real router and dispatcher, with
// a real skill library and workspace store on temporary folders.
#include <gtest/gtest.h>

#include "harness/http/api.hpp"
#include "harness/http/services.hpp"
#include "harness/skills/skill_library.hpp"
#include "harness/skills/workspace_store.hpp"
#include "http/run_dispatch.hpp"
#include "skills/skills_test_support.hpp"

namespace harness::skills {
namespace {

using namespace testing;
using json = nlohmann::json;
using http::http_request;
using http::http_response;

http_request request(std::string method, std::string target) {
  http_request r;
  r.method = std::move(method);
  r.target = target;
  auto parsed = http::parse_target(target);
  EXPECT_TRUE(parsed) << target;
  r.path = parsed->path;
  r.query = parsed->query;
  r.request_id = "req_1";
  return r;
}

class SkillRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    skill_config skills;
    skills.dir = temp.path() / "skills";
    write_text(skills.dir / "examples/data-processor/SKILL.md", skill_md("data-processor", "Summarises records."));
    write_text(skills.dir / "examples/data-processor/index.js", "module.exports = {};\n");
    svc.skills = create_skill_library(skills);
    workspace_config workspace;
    workspace.dir = temp.path() / "workspace";
    svc.workspaces = create_workspace_store(workspace);
    svc.skills->apply_changes("alice", {write_change("skills", "csv-report/SKILL.md", skill_md("csv-report", "CSV.")),
                                        write_change("skills", "csv-report/index.js", "exports.x = 1;\n")});
    svc.workspaces->apply_changes("task_1", {write_change("workspace", "out/report.csv", "a,b\n"),
                                             write_change("workspace", "page.html", "<script>alert(1)</script>"),
                                             write_change("workspace", "blob", std::string("\0\1", 2))});
  }
  http_response send(std::string method, std::string target) {
    return http::run_dispatch(http::make_api_router(), svc, request(std::move(method), std::move(target)));
  }
  static json body(const http_response& r) { return json::parse(r.body); }
  static std::string error_code(const http_response& r) { return body(r)["error"]["code"]; }

  temp_folder temp;
  http::services svc{core::real_clock()};
};

TEST_F(SkillRoutesTest, ListSkills) {
  auto r = send("GET", "/skills?userId=alice");
  ASSERT_EQ(r.status, 200u) << r.body;
  auto skills = body(r)["skills"];
  ASSERT_EQ(skills.size(), 2u);
  EXPECT_EQ(skills[0]["name"], "csv-report");
  EXPECT_EQ(skills[0]["description"], "CSV.");
  EXPECT_EQ(skills[0]["files"], json::array({"SKILL.md", "index.js"}));
  EXPECT_EQ(skills[0]["owner"], "user");
  EXPECT_TRUE(skills[0]["updated"].is_string());
  EXPECT_EQ(skills[1]["owner"], "example");
  auto bob = send("GET", "/skills?userId=bob");
  ASSERT_EQ(bob.status, 200u);
  EXPECT_EQ(body(bob)["skills"].size(), 1u);  // the example only
}

TEST_F(SkillRoutesTest, ListSkillsNeedsAValidUserId) {
  auto missing = send("GET", "/skills");
  EXPECT_EQ(missing.status, 400u);
  EXPECT_NE(body(missing)["error"]["message"].get<std::string>().find("userId"), std::string::npos);
  auto parent = send("GET", "/skills?userId=..");
  EXPECT_EQ(parent.status, 400u);
  EXPECT_EQ(error_code(parent), "invalid_user_id");
  EXPECT_EQ(send("GET", "/skills?userId=a%2Fb").status, 400u);
}

TEST_F(SkillRoutesTest, GetSkill) {
  auto r = send("GET", "/skills/alice/csv-report");
  ASSERT_EQ(r.status, 200u) << r.body;
  EXPECT_EQ(body(r)["skillMd"], skill_md("csv-report", "CSV."));
  EXPECT_EQ(body(r)["files"][1], json({{"path", "index.js"}, {"size", 15}}));
  EXPECT_EQ(send("GET", "/skills/alice/data-processor").status, 200u);
  auto other = send("GET", "/skills/bob/csv-report");
  EXPECT_EQ(other.status, 404u);
  EXPECT_EQ(error_code(other), "skill_not_found");
  EXPECT_EQ(error_code(send("GET", "/skills/alice/Bad_Name")), "invalid_skill_name");
  EXPECT_EQ(send("GET", "/skills/alice/Bad_Name").status, 400u);
  EXPECT_EQ(send("GET", "/skills/../csv-report").status, 400u);
}

TEST_F(SkillRoutesTest, GetSkillFileServesOnlyTheSkillsOwnFilesAsText) {
  auto r = send("GET", "/skills/alice/csv-report/files/index.js");
  ASSERT_EQ(r.status, 200u) << r.body;
  EXPECT_EQ(r.body, "exports.x = 1;\n");
  EXPECT_EQ(r.header("Content-Type"), "text/plain; charset=utf-8");
  EXPECT_EQ(r.header("X-Content-Type-Options"), "nosniff");
  // The example is found when the user has no skill of that name.
  auto example = send("GET", "/skills/alice/data-processor/files/index.js");
  ASSERT_EQ(example.status, 200u) << example.body;
  EXPECT_EQ(example.body, "module.exports = {};\n");
  auto missing = send("GET", "/skills/alice/csv-report/files/nope.js");
  EXPECT_EQ(missing.status, 404u);
  EXPECT_EQ(error_code(missing), "file_not_found");
  // Paths the skill does not list never reach the disk: another skill's, the folder above.
  EXPECT_EQ(error_code(send("GET", "/skills/alice/csv-report/files/../data-processor/index.js")), "file_not_found");
  EXPECT_EQ(error_code(send("GET", "/skills/alice/csv-report/files/%2e%2e/%2e%2e/users/alice/csv-report/SKILL.md")),
            "file_not_found");
  // Another user's skill is the same 404 as a missing one.
  EXPECT_EQ(error_code(send("GET", "/skills/bob/csv-report/files/index.js")), "skill_not_found");
}

TEST_F(SkillRoutesTest, DeleteSkill) {
  auto example = send("DELETE", "/skills/alice/data-processor");
  EXPECT_EQ(example.status, 403u);
  EXPECT_EQ(error_code(example), "skill_read_only");
  auto r = send("DELETE", "/skills/alice/csv-report");
  ASSERT_EQ(r.status, 200u) << r.body;
  EXPECT_EQ(body(r), json({{"name", "csv-report"}, {"deleted", true}}));
  EXPECT_EQ(send("DELETE", "/skills/alice/csv-report").status, 404u);
  EXPECT_EQ(send("GET", "/skills/alice/csv-report").status, 404u);
}

TEST_F(SkillRoutesTest, ListTaskFiles) {
  auto r = send("GET", "/tasks/task_1/files");
  ASSERT_EQ(r.status, 200u) << r.body;
  EXPECT_EQ(body(r)["taskId"], "task_1");
  auto files = body(r)["files"];
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[1]["path"], "out/report.csv");
  EXPECT_EQ(files[1]["size"], 4);
  auto missing = send("GET", "/tasks/task_2/files");
  EXPECT_EQ(missing.status, 404u);
  EXPECT_EQ(error_code(missing), "workspace_not_found");
  EXPECT_EQ(send("GET", "/tasks/../files").status, 400u);
}

TEST_F(SkillRoutesTest, DownloadTaskFile) {
  auto csv = send("GET", "/tasks/task_1/files/out/report.csv");
  ASSERT_EQ(csv.status, 200u) << csv.body;
  EXPECT_EQ(csv.body, "a,b\n");
  EXPECT_EQ(csv.header("Content-Type"), "text/csv; charset=utf-8");
  EXPECT_EQ(csv.header("Content-Disposition"), "attachment; filename=\"report.csv\"");
  EXPECT_EQ(csv.header("X-Content-Type-Options"), "nosniff");
  auto html = send("GET", "/tasks/task_1/files/page.html");
  EXPECT_EQ(html.header("Content-Type"), "text/plain; charset=utf-8");  // never rendered as a page
  auto blob = send("GET", "/tasks/task_1/files/blob");
  EXPECT_EQ(blob.body, std::string("\0\1", 2));
  EXPECT_EQ(blob.header("Content-Type"), "application/octet-stream");
  auto missing = send("GET", "/tasks/task_1/files/nope.txt");
  EXPECT_EQ(missing.status, 404u);
  EXPECT_EQ(missing.header("Content-Type"), "application/json");
  EXPECT_EQ(error_code(missing), "file_not_found");
  // %2F..%2F decodes to a path with "..": refused before any file is opened.
  auto escape = send("GET", "/tasks/task_1/files/out%2F..%2F..%2Fskills");
  EXPECT_EQ(escape.status, 400u);
  EXPECT_EQ(error_code(escape), "invalid_path");
}

TEST_F(SkillRoutesTest, DownloadRefusesWhatIsNotAPlainFileWithItsOwnStatus) {
  auto folder = send("GET", "/tasks/task_1/files/out");
  EXPECT_EQ(folder.status, 409u) << folder.body;
  EXPECT_EQ(error_code(folder), "path_conflict");
  // A symlink planted in the server's folder is never followed.
  std::filesystem::create_symlink("/etc/hostname", temp.path() / "workspace/task_1/link");
  auto link = send("GET", "/tasks/task_1/files/link");
  EXPECT_EQ(link.status, 403u) << link.body;
  EXPECT_EQ(error_code(link), "host_symlink");
}

TEST(SkillRoutes, DownloadOfAFileOverTheWorkspaceCapIs422) {
  temp_folder temp;
  workspace_config workspace;
  workspace.dir = temp.path() / "workspace";
  workspace.caps.max_total_bytes = 8;
  http::services svc{core::real_clock()};
  svc.workspaces = create_workspace_store(workspace);
  write_text(temp.path() / "workspace/task_1/big.txt", "more than eight bytes");
  auto big = http::run_dispatch(http::make_api_router(), svc, request("GET", "/tasks/task_1/files/big.txt"));
  EXPECT_EQ(big.status, 422u) << big.body;
  EXPECT_EQ(json::parse(big.body)["error"]["code"], "file_too_large");
}

TEST_F(SkillRoutesTest, Answer503WhenNotConfigured) {
  http::services empty{core::real_clock()};
  for (auto [method, target] : std::vector<std::pair<std::string, std::string>>{{"GET", "/skills?userId=alice"},
                                                                                {"GET", "/skills/alice/x"},
                                                                                {"DELETE", "/skills/alice/x"},
                                                                                {"GET", "/tasks/t/files"},
                                                                                {"GET", "/tasks/t/files/a.txt"}}) {
    auto r = http::run_dispatch(http::make_api_router(), empty, request(method, target));
    EXPECT_EQ(r.status, 503u) << target;
    EXPECT_NE(body(r)["error"]["message"].get<std::string>().find("_DIR"), std::string::npos) << r.body;
  }
}

}  // namespace
}  // namespace harness::skills
