// The tool policy on the real data path: the real binary with a policy file,
// the real sandbox and npm MCP servers. A denied call and one past
// maxCallsPerTask throw in the code, which goes on; the PII rules decide which
// tool gets the raw address and which the token; the file is followed while
// the server runs, and a bad one at start-up stops it with exit code 2.
#include <fstream>
#include <sstream>
#include <thread>

#include "execution/execute_fixture.hpp"
#include "support/child_process.hpp"

namespace harness::testing {
namespace {

class ToolPolicyIntegration : public ExecuteIntegration {
 protected:
  void SetUp() override {
    owner = "harness-policy-" + std::to_string(getpid());
    workspace = fs::temp_directory_path() / (owner + "-ws");
    fs::create_directories(workspace);
    policy = workspace / "policy.json";
    // The everything server (its echo tool) beside the memory server.
    mcp_config = workspace / "mcp.json";
    std::ofstream(mcp_config) << json{{"mcpServers",
                                       {{"everything",
                                         {{"command", "node"},
                                          {"args",
                                           {source_path("servers/node_modules/@modelcontextprotocol/"
                                                        "server-everything/dist/index.js"),
                                            "stdio"}}}},
                                        {"memory",
                                         {{"command", "node"},
                                          {"args",
                                           {source_path("servers/node_modules/@modelcontextprotocol/"
                                                        "server-memory/dist/index.js")}},
                                          {"env", {{"MEMORY_FILE_PATH", (workspace / "memory.jsonl").string()}}}}}}}}
                                     .dump();
  }

  void write_policy(const json& rules) {
    auto tmp = workspace / "policy.json.tmp";
    std::ofstream(tmp) << json{{"rules", rules}}.dump();
    fs::rename(tmp, policy);
  }

  // Waits for both MCP servers too: a block that waits for a server still
  // starting spends its SANDBOX_TIMEOUT_MS (4 s here) on that, and on a busy
  // machine (or under gVisor) node takes that long to start one.
  void start() {
    start_server({{"TOOL_POLICY_FILE", policy.string()}, {"MCP_CONFIG", mcp_config.string()}});
    ASSERT_TRUE(server->wait_healthy(1, {"mcp.everything", "mcp.memory"})) << server->call("GET", "/health")->body;
  }

  json run(const std::string& code) { return execute({{"userId", "alice"}, {"code", code}}); }

  fs::path policy, mcp_config;
};

TEST_F(ToolPolicyIntegration, DeniedAndLimitedCallsThrowInTheCodeWhichGoesOn) {
  write_policy(
      {{{"tool", "memory__delete_*"}, {"approval", "deny"}}, {{"tool", "everything__echo"}, {"maxCallsPerTask", 2}}});
  start();
  auto r =
      run("const out = {};\n"
          "try { await callMCPTool('memory__delete_entities', {entityNames: ['x']}); }"
          " catch (e) { out.denied = e.code + ': ' + e.message; }\n"
          "await callMCPTool('everything__echo', {message: 'one'});\n"
          "await callMCPTool('everything__echo', {message: 'two'});\n"
          "try { await callMCPTool('everything__echo', {message: 'three'}); }"
          " catch (e) { out.limited = e.code + ': ' + e.message; }\n"
          "out.after = (await callMCPTool('memory__read_graph', {})).entities.length;\n"
          "return out;");
  ASSERT_TRUE(r["result"].is_object()) << r.dump();
  auto denied = r["result"].value("denied", std::string());
  EXPECT_EQ(denied.rfind("tool_denied: the tool policy denies calls of memory__delete_entities (rule 1", 0), 0u)
      << denied;
  auto limited = r["result"].value("limited", std::string());
  EXPECT_EQ(limited.rfind("call_limit: this task has made its 2 calls of everything__echo", 0), 0u) << limited;
  EXPECT_EQ(r["result"]["after"], 0);  // the code went on after both refusals
  // A new session counts anew: the limit is per task (here: per /execute session).
  auto again = run("return JSON.stringify(await callMCPTool('everything__echo', {message: 'x'}))");
  EXPECT_NE(again["result"].get<std::string>().find("Echo: x"), std::string::npos) << again.dump();
}

TEST_F(ToolPolicyIntegration, RulesNamingUsersOrARoleApplyOnlyToThem) {
  // everything__echo for alice only; memory__delete_* denied to user keys,
  // which the open caller of a server without keys is not (it has admin rights).
  write_policy({{{"tool", "everything__echo"}, {"users", {"alice"}}, {"approval", "never"}},
                {{"tool", "everything__echo"}, {"approval", "deny"}},
                {{"tool", "memory__delete_*"}, {"role", "user"}, {"approval", "deny"}}});
  start();
  const std::string code =
      "const out = {};\n"
      "try { out.echo = JSON.stringify(await callMCPTool('everything__echo', {message: 'hi'})).includes('Echo: hi'); }"
      " catch (e) { out.echo = e.code; }\n"
      "try { await callMCPTool('memory__delete_entities', {entityNames: ['x']}); out.del = 'ran'; }"
      " catch (e) { out.del = e.code; }\n"
      "return out;";
  auto alice = execute({{"userId", "alice"}, {"code", code}});
  EXPECT_EQ(alice["result"]["echo"], true) << alice.dump();
  EXPECT_EQ(alice["result"]["del"], "ran") << "the open caller is not a user key: " << alice.dump();
  auto bob = execute({{"userId", "bob"}, {"code", code}});
  EXPECT_EQ(bob["result"]["echo"], "tool_denied") << bob.dump();
}

TEST_F(ToolPolicyIntegration, EachToolGetsOnlyThePiiKindsItsRuleAllows) {
  write_policy({{{"tool", "everything__*"}, {"pii", "none"}}, {{"tool", "*"}, {"pii", "all"}}});
  start();
  // The address comes back from a tool as a token; the code passes the token
  // on. The echo tool (pii none) gets the token text, the memory tool the address.
  auto r =
      run("const first = JSON.stringify(await callMCPTool('everything__echo', {message: 'bob@example.com'}));\n"
          "const token = first.match(/\\[EMAIL_[0-9]+\\]/)[0];\n"
          "const echoed = JSON.stringify(await callMCPTool('everything__echo', {message: token}));\n"
          "await callMCPTool('memory__create_entities', {entities: [{name: 'bob', entityType: 'person',"
          " observations: [token]}]});\n"
          "return {token, echoed};");
  ASSERT_TRUE(r["result"].is_object()) << r.dump();
  EXPECT_EQ(r["result"]["token"], "[EMAIL_1]") << r.dump();
  // The echo server got the text "[EMAIL_1]" and sent it back; token-shaped
  // text from a tool is itself tokenized on its way in ([TOKEN_n]), so the
  // code cannot mistake it for the vault's token. (Had the server got the
  // address, the code would read "Echo: [EMAIL_1]".)
  auto echoed = r["result"]["echoed"].get<std::string>();
  EXPECT_NE(echoed.find("Echo: [TOKEN_"), std::string::npos) << echoed << " / " << r.dump();
  EXPECT_EQ(echoed.find("[EMAIL_1]"), std::string::npos) << echoed;
  // The memory server got the address itself.
  std::ifstream graph(workspace / "memory.jsonl");
  std::stringstream text;
  text << graph.rdbuf();
  EXPECT_NE(text.str().find("bob@example.com"), std::string::npos) << text.str();
}

TEST_F(ToolPolicyIntegration, TheFileIsFollowedAndABadVersionKeepsTheLastGoodOne) {
  write_policy({{{"tool", "everything__echo"}, {"approval", "deny"}}});
  start();
  const std::string call =
      "try { await callMCPTool('everything__echo', {message: 'hi'}); return 'called'; }"
      " catch (e) { return e.code; }";
  EXPECT_EQ(run(call)["result"], "tool_denied");
  write_policy(json::array());
  std::this_thread::sleep_for(1500ms);
  EXPECT_EQ(run(call)["result"], "called");
  std::ofstream(policy) << R"({"rules": [{"tool": "*", "approval": "perhaps"}]})";
  std::this_thread::sleep_for(1500ms);
  EXPECT_EQ(run(call)["result"], "called");  // the last good policy stays
  auto health = server->call("GET", "/health");
  ASSERT_TRUE(health);
  auto entry = health->json()["components"]["policy"];
  EXPECT_EQ(entry["status"], "down") << health->body;
  EXPECT_NE(entry.value("lastError", std::string()).find("\"approval\""), std::string::npos) << health->body;
}

// What the everything server's tools return reaches code as values it can
// use: structuredContent as the value, an embedded resource as it came, and a
// resource_link that readMCPResource reads from the server it names. The
// tool policy covers the reads (a rule for everything__* denies them too).
TEST_F(ToolPolicyIntegration, ResourcesAndStructuredContentReachTheCodeAsValues) {
  write_policy({{{"tool", "memory__*"}, {"approval", "deny"}}});
  start();
  auto r =
      run("const weather = await callMCPTool('everything__get-structured-content', {location: 'Chicago'});\n"
          "const embedded = await callMCPTool('everything__get-resource-reference', {resourceType: 'Text', resourceId: "
          "2});\n"
          "const links = await callMCPTool('everything__get-resource-links', {count: 2});\n"
          "const link = links.find((l) => l.type === 'resource_link');\n"
          "const read = await readMCPResource(link);\n"
          "const direct = await readMCPResource('everything', link.uri);\n"
          "const refused = {};\n"
          "try { await readMCPResource('nope', 'x://y'); } catch (e) { refused.unknown = e.code; }\n"
          "try { await readMCPResource('memory', 'x://y'); } catch (e) { refused.denied = e.code; }\n"
          "try { await readMCPResource({uri: 'x://y'}); } catch (e) { refused.noServer = e.code; }\n"
          // The everything server stamps each read with the time of day (in the
          // text, or inside the base64 blob): two reads a second apart differ
          // only there, so they are compared without their contents.
          "const shape = (x) => JSON.stringify([].concat(x).map((c) => [c.uri, c.mimeType, 'text' in c]));\n"
          "return {weather, embedded, link, read, same: shape(read) === shape(direct), refused};");
  const auto& v = r["result"];
  ASSERT_TRUE(v.is_object()) << r.dump();
  EXPECT_TRUE(v["weather"].contains("temperature")) << v["weather"].dump();
  EXPECT_TRUE(v["weather"].contains("conditions")) << v["weather"].dump();
  const json embedded = v["embedded"].is_array() ? v["embedded"] : json::array({v["embedded"]});
  bool has_resource = false;
  for (const auto& item : embedded)
    has_resource = has_resource || (item.is_object() && item.value("type", "") == "resource");
  EXPECT_TRUE(has_resource) << v["embedded"].dump();
  EXPECT_EQ(v["link"]["server"], "everything") << v["link"].dump();
  EXPECT_EQ(v["read"]["uri"], v["link"]["uri"]) << v["read"].dump();
  EXPECT_TRUE(v["read"].contains("text") || v["read"].contains("blob")) << v["read"].dump();
  EXPECT_EQ(v["same"], true);
  EXPECT_EQ(v["refused"]["unknown"], "mcp_unknown_tool") << v["refused"].dump();
  EXPECT_EQ(v["refused"]["denied"], "tool_denied") << v["refused"].dump();
  EXPECT_EQ(v["refused"]["noServer"], "bad_call") << v["refused"].dump();
}

TEST(ToolPolicyStartup, ABadFileStopsTheServerWithExitCode2) {
  auto dir = fs::temp_directory_path() / ("harness-policy-start-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "policy.json") << R"({"rules": [{"tool": "fs__*", "approval": "ask", "color": "red"}]})";
  child_process child({binary_path("src/mcp-harness")},
                      {{"ENV_FILE", "/dev/null"},
                       {"PORT", "0"},
                       {"TOOL_POLICY_FILE", (dir / "policy.json").string()},
                       {"SANDBOX_POOL_SIZE", "0"},
                       {"STORE_PATH", (dir / "h.db").string()},
                       {"SKILLS_DIR", (dir / "skills").string()},
                       {"WORKSPACE_DIR", (dir / "ws").string()},
                       {"MCP_CONFIG", source_path("tests/http/no_mcp_servers.json")}});
  auto code = child.wait_exit(30s);
  EXPECT_EQ(code, 2) << child.output();
  EXPECT_NE(child.output().find("unknown field \"color\""), std::string::npos) << child.output();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace harness::testing
