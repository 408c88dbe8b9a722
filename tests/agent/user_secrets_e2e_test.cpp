// Users' secrets end to end: the real binary, a user-scoped server-everything
// from npm whose API_TOKEN is ${secret:API_TOKEN}, the real sandbox and
// SQLite store, a fake LLM over HTTP. Alice's instance gets her value; what
// comes back carries a token in its place, and the value shows up nowhere
// else: not in a result, the log, the database file, a task's events, or
// what the LLM received. Bob, who set none, is told how to set it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "llm/fake_llm_steps.hpp"
#include "support/child_process.hpp"
#include "users_e2e_fixture.hpp"

namespace harness::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* alice_token = "sk-alice-7f3c9a1e5b";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class UserSecrets : public users_e2e {
 protected:
  void SetUp() override {
    make_root("harness-secrets");
    fs::create_directories(root / "files");
    const json config = {
        {"mcpServers",
         {{"everything",
           {{"scope", "user"},
            {"command", "node"},
            {"args",
             {source_path("servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"}},
            {"env", {{"API_TOKEN", "${secret:API_TOKEN}"}}}}},
          {"fs",
           {{"scope", "user"},
            {"command", "node"},
            {"args",
             {source_path("servers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"),
              (root / "files").string()}}}}}}};
    std::ofstream(root / "mcp.json") << config.dump(2);
    start((root / "files").string(),
          {{"MCP_CONFIG", (root / "mcp.json").string()}, {"LOG_LEVEL", "debug"}, {"SANDBOX_TIMEOUT_MS", "20000"}});
  }

  void set_secret(const std::string& user, const std::string& value) {
    auto r = server->call("PUT", "/secrets/API_TOKEN?userId=" + user, json{{"value", value}}.dump());
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
  }
};

TEST_F(UserSecrets, TheUsersInstanceGetsTheValueAndEverythingElseSeesAToken) {
  set_secret("alice", alice_token);
  auto listed = server->call("GET", "/secrets?userId=alice");
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->status, 200) << listed->body;
  EXPECT_EQ(listed->json()["secrets"][0]["name"], "API_TOKEN") << listed->body;
  EXPECT_EQ(listed->body.find(alice_token), std::string::npos) << "names only on read";

  // Her instance has the value (its environment), her code sees the token;
  // the token written through another server stays a token.
  auto seen = execute("alice",
                      "const env = await callMCPTool('everything__get-env', {});\n"
                      "const echoed = await callMCPTool('everything__echo', {message: 'token ' + env.API_TOKEN});\n"
                      "await callMCPTool('fs__write_file', {path: '" +
                          (root / "files" / "note.txt").string() +
                          "', content: env.API_TOKEN});\n"
                          "return {token: env.API_TOKEN, echoed};");
  // [SECRET_1] is token-shaped: the PII censor, which sees the result next,
  // escapes it as one of its own ([TOKEN_n], standing for the literal text).
  const auto token = seen["result"]["token"].get<std::string>();
  EXPECT_TRUE(token.rfind("[TOKEN_", 0) == 0 || token == "[SECRET_1]") << seen.dump();
  EXPECT_EQ(seen["result"]["echoed"], "Echo: token " + token) << seen.dump();
  EXPECT_EQ(read_file(root / "files" / "note.txt"), "[SECRET_1]") << "a token is restored only for its own server";

  // A task: the LLM's code reads the environment; the model gets the token.
  llm.push(json::array({code_step("const env = await callMCPTool('everything__get-env', {});\n"
                                  "return {token: env.API_TOKEN};"),
                        answer_step("The token is set.")}));
  auto task = server->call("POST", "/task", json{{"userId", "alice"}, {"task", "Is my API token set?"}}.dump(), 90s);
  ASSERT_TRUE(task);
  ASSERT_EQ(task->status, 200) << task->body;
  EXPECT_EQ(task->json()["status"], "succeeded") << task->body;
  std::string seen_by_llm;
  for (const auto& request : llm.requests()) seen_by_llm += request.body;
  EXPECT_NE(seen_by_llm.find(R"(\"token\":\"[TOKEN_)"), std::string::npos) << seen_by_llm;
  auto events = server->call("GET", "/tasks/" + task->json()["taskId"].get<std::string>() + "/events", {}, 30s);
  ASSERT_TRUE(events);
  auto metrics = server->call("GET", "/metrics");
  ASSERT_TRUE(metrics);

  // Bob set none: his call fails before his instance starts, and says how.
  auto bobs = execute("bob",
                      "try { return await callMCPTool('everything__get-env', {}); }\n"
                      "catch (e) { return {code: e.code, message: e.message}; }");
  const std::string bob = bobs.dump();
  EXPECT_EQ(bobs["result"]["code"], "secret_missing") << bob;
  EXPECT_NE(bob.find("PUT /secrets/API_TOKEN"), std::string::npos) << bob;
  EXPECT_EQ(bob.find(alice_token), std::string::npos) << bob;

  // Deleting it restarts her instance: the next call is refused as Bob's was.
  auto removed = server->call("DELETE", "/secrets/API_TOKEN?userId=alice");
  ASSERT_TRUE(removed);
  EXPECT_EQ(removed->status, 200) << removed->body;
  auto after = execute("alice",
                       "try { return await callMCPTool('everything__get-env', {}); }\n"
                       "catch (e) { return {code: e.code}; }");
  EXPECT_EQ(after["result"]["code"], "secret_missing") << after.dump();

  ASSERT_EQ(server->stop(), 0);
  for (const auto& [what, text] : std::vector<std::pair<std::string, std::string>>{
           {"a result", seen.dump()},
           {"the LLM's requests", seen_by_llm},
           {"the task's events", events->body},
           {"/metrics", metrics->body},
           {"the log", server->output()},
           {"the database file", read_file(root / "harness.db") + read_file(root / "harness.db-wal")}}) {
    EXPECT_EQ(text.find(alice_token), std::string::npos) << "the value reached " << what;
  }
}

TEST_F(UserSecrets, BadNamesAndValuesAreRefusedWithWhatToDo) {
  auto short_value = server->call("PUT", "/secrets/API_TOKEN?userId=alice", json{{"value", "short"}}.dump());
  ASSERT_TRUE(short_value);
  EXPECT_EQ(short_value->status, 400) << short_value->body;
  EXPECT_EQ(short_value->json()["error"]["code"], "invalid_secret_value") << short_value->body;
  auto bad_name = server->call("PUT", "/secrets/9LIVES?userId=alice", json{{"value", "long enough"}}.dump());
  ASSERT_TRUE(bad_name);
  EXPECT_EQ(bad_name->status, 400) << bad_name->body;
  auto no_value = server->call("PUT", "/secrets/API_TOKEN?userId=alice", json{{"valu", alice_token}}.dump());
  ASSERT_TRUE(no_value);
  EXPECT_EQ(no_value->status, 400) << no_value->body;
  auto missing = server->call("DELETE", "/secrets/API_TOKEN?userId=alice");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404) << missing->body;
}

}  // namespace
}  // namespace harness::testing
