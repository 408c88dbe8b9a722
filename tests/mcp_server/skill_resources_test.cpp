// The user's skills as MCP resources, through a session, with a real skill
// library on a temporary folder: what resources/list offers (own skills, the
// examples they do not shadow, never another user's), resources/read, and the
// errors a client gets for URIs that name nothing.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>

#include "harness/mcp_server/mcp_face.hpp"
#include "harness/skills/skill_library.hpp"
#include "mcp_server/fakes.hpp"
#include "mcp_server/sample_skills.hpp"
#include "skills/skills_test_support.hpp"
#include "support/run_sync.hpp"

namespace harness::mcp_server {
namespace {

using json = nlohmann::json;
using fakes::rpc_request;
using harness::testing::run_until_done;
using skills::testing::skill_md;
using skills::testing::write_change;
using skills::testing::write_text;

class SkillResources : public ::testing::Test {
 protected:
  void SetUp() override {
    face = create_mcp_face(io.get_executor(), core::real_clock(),
                           {.skills = testing::sample_skills(temp.path() / "skills")}, {});
    session = face->open("alice", "key_1", false).session;
  }
  void TearDown() override { run_until_done(io, face->shutdown()); }

  json send(json message) {
    auto answer = run_until_done(io, session->handle(std::move(message), nullptr));
    EXPECT_TRUE(answer.has_value());
    return answer ? *answer : json();
  }

  skills::testing::temp_folder temp;
  boost::asio::io_context io;
  std::shared_ptr<mcp_face> face;
  std::shared_ptr<mcp_session> session;
};

TEST_F(SkillResources, InitializeDeclaresResources) {
  auto r = send(rpc_request(0, "initialize", {{"protocolVersion", "2025-11-25"}}));
  EXPECT_EQ(r["result"]["capabilities"]["resources"], json({{"listChanged", false}, {"subscribe", false}}));
}

TEST_F(SkillResources, ListOffersOwnSkillsAndUnshadowedExamplesOnly) {
  auto r = send(rpc_request(1, "resources/list"));
  ASSERT_TRUE(r.contains("result")) << r.dump();
  std::map<std::string, json> by_uri;
  for (const auto& res : r["result"]["resources"]) by_uri[res["uri"]] = res;
  ASSERT_EQ(by_uri.size(), 2u) << r.dump();
  ASSERT_TRUE(by_uri.contains("skill://csv-report/SKILL.md"));
  EXPECT_EQ(by_uri["skill://csv-report/SKILL.md"]["description"], "Mine.");  // the user's, not the example
  EXPECT_EQ(by_uri["skill://csv-report/SKILL.md"]["mimeType"], "text/markdown");
  ASSERT_TRUE(by_uri.contains("skill://data-processor/SKILL.md"));
  EXPECT_NE(by_uri["skill://data-processor/SKILL.md"]["description"].get<std::string>().find("example"),
            std::string::npos);
  EXPECT_FALSE(by_uri.contains("skill://secret/SKILL.md"));  // bob's
}

TEST_F(SkillResources, ReadGivesTheSkillMd) {
  auto r = send(rpc_request(2, "resources/read", {{"uri", "skill://csv-report/SKILL.md"}}));
  ASSERT_TRUE(r.contains("result")) << r.dump();
  const auto& contents = r["result"]["contents"];
  ASSERT_EQ(contents.size(), 1u);
  EXPECT_EQ(contents[0]["uri"], "skill://csv-report/SKILL.md");
  EXPECT_EQ(contents[0]["mimeType"], "text/markdown");
  EXPECT_EQ(contents[0]["text"], skill_md("csv-report", "Mine."));
  auto example = send(rpc_request(3, "resources/read", {{"uri", "skill://data-processor/SKILL.md"}}));
  EXPECT_EQ(example["result"]["contents"][0]["text"], skill_md("data-processor", "Summarises records."));
}

TEST_F(SkillResources, UrisThatNameNothingAreResourceNotFound) {
  for (const char* uri : {"skill://secret/SKILL.md", "skill://nope/SKILL.md", "skill://../users/bob/secret/SKILL.md",
                          "skill:///SKILL.md", "file:///etc/passwd", "skill://csv-report/index.js"}) {
    auto r = send(rpc_request(4, "resources/read", {{"uri", uri}}));
    ASSERT_TRUE(r.contains("error")) << uri << ": " << r.dump();
    EXPECT_EQ(r["error"]["code"], -32002) << uri << ": " << r.dump();
    EXPECT_EQ(r["error"]["data"]["uri"], uri);
  }
  auto no_uri = send(rpc_request(5, "resources/read"));
  EXPECT_EQ(no_uri["error"]["code"], -32602);
}

TEST_F(SkillResources, TemplatesNameTheOneShape) {
  auto r = send(rpc_request(6, "resources/templates/list"));
  ASSERT_EQ(r["result"]["resourceTemplates"].size(), 1u);
  EXPECT_EQ(r["result"]["resourceTemplates"][0]["uriTemplate"], "skill://{name}/SKILL.md");
}

TEST(SkillResourcesOff, WithoutALibraryThereAreNoResources) {
  boost::asio::io_context io;
  auto face = create_mcp_face(io.get_executor(), core::real_clock(), {}, {});
  auto session = face->open("alice", "", false).session;
  auto init = run_until_done(io, session->handle(rpc_request(0, "initialize"), nullptr));
  EXPECT_FALSE((*init)["result"]["capabilities"].contains("resources"));
  auto list = run_until_done(io, session->handle(rpc_request(1, "resources/list"), nullptr));
  EXPECT_EQ((*list)["error"]["code"], -32601);
  EXPECT_EQ((*list)["error"]["message"].get<std::string>().find("resources/read"), std::string::npos);
  run_until_done(io, face->shutdown());
}

}  // namespace
}  // namespace harness::mcp_server
