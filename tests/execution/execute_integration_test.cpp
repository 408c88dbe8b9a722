// POST /execute against the real binary with the real Docker engine, the
// sandbox image, the npm MCP servers (servers/mcp.json) and the PII censor.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "execution/execute_fixture.hpp"

namespace harness::testing {
namespace {

TEST_F(ExecuteIntegration, RunsCodeInAWarmSandboxAndCleansUp) {
  auto r = execute({{"userId", "alice"}, {"code", "console.log('hi', 6 * 7);\nreturn {answer: 42}"}});
  EXPECT_EQ(r["result"], (json{{"answer", 42}}));
  EXPECT_EQ(r["logs"][0]["text"], "hi 42");
  EXPECT_EQ(r["sandbox"]["warm"], true);
  EXPECT_TRUE(r["sessionId"].is_null());
  EXPECT_FALSE(r.contains("error"));
  EXPECT_TRUE(r["durationMs"].is_number());
  // The breakdown of durationMs: opening the sandbox, then the block, of which the runtime's own part.
  const json& t = r["timing"];
  ASSERT_TRUE(t["openMs"].is_number() && t["blockMs"].is_number() && t["runtimeMs"].is_number()) << r.dump();
  EXPECT_GT(t["runtimeMs"].get<double>(), 0);
  EXPECT_LE(t["runtimeMs"].get<double>(), t["blockMs"].get<double>());
  EXPECT_LE(t["openMs"].get<double>() + t["blockMs"].get<double>(), r["durationMs"].get<double>());
}

TEST_F(ExecuteIntegration, ASessionKeepsItsStateAndASessionIdNamesOneSessionPerUser) {
  json first =
      execute({{"userId", "alice"}, {"sessionId", "nb-1"}, {"code", "const rows = [1, 2, 3];\nreturn rows.length"}});
  EXPECT_EQ(first["result"], 3);
  EXPECT_EQ(first["sessionId"], "nb-1");
  json second = execute({{"userId", "alice"}, {"sessionId", "nb-1"}, {"code", "return rows.map((x) => x * 10)"}});
  EXPECT_EQ(second["result"], json::array({10, 20, 30}));

  // bob's "nb-1" is a session of his own: alice's state is not in it.
  json other = execute({{"userId", "bob"}, {"sessionId", "nb-1"}, {"code", "return typeof rows"}});
  EXPECT_EQ(other["result"], "undefined") << other.dump();
  EXPECT_EQ(other["sessionId"], "nb-1");
  auto wrong_user = http_call(port, "DELETE", "/sessions/nb-1?userId=carol");
  ASSERT_TRUE(wrong_user);
  EXPECT_EQ(wrong_user->status, 404);
  auto bobs = http_call(port, "DELETE", "/sessions/nb-1?userId=bob");
  ASSERT_TRUE(bobs);
  EXPECT_EQ(bobs->status, 200);
  auto ended = http_call(port, "DELETE", "/sessions/nb-1?userId=alice");
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->status, 200);
  auto again = http_call(port, "DELETE", "/sessions/nb-1?userId=alice");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 404);

  // The id can be used again, for a fresh sandbox: the old state is gone.
  json fresh = execute({{"userId", "alice"}, {"sessionId", "nb-1"}, {"code", "return typeof rows"}});
  EXPECT_EQ(fresh["result"], "undefined");
}

TEST_F(ExecuteIntegration, ATimeoutIsAResultAndTheSessionStartsOver) {
  execute({{"userId", "alice"}, {"sessionId", "loop"}, {"code", "globalThis.kept = 1; return 1"}});
  json r = execute({{"userId", "alice"}, {"sessionId", "loop"}, {"code", "while (true) {}"}});
  EXPECT_EQ(r["error"]["name"], "TimeoutError");
  EXPECT_EQ(r["sandbox"]["ended"], true);
  json after = execute({{"userId", "alice"}, {"sessionId", "loop"}, {"code", "return typeof kept"}});
  EXPECT_EQ(after["result"], "undefined");
}

// /execute is a sandbox for its user like a task's: the user's skills are in
// it, and a skill it saves is validated, kept, and in the next sandbox.
TEST_F(ExecuteIntegration, SkillsSavedFromExecuteAreKeptForTheUser) {
  json saved =
      execute({{"userId", "alice"},
               {"code",
                "await fs.mkdir('/skills/double', {recursive: true});\n"
                "await fs.writeFile('/skills/double/SKILL.md', '---\\nname: double\\ndescription: Doubles\\n---\\n');\n"
                "await fs.writeFile('/skills/double/index.js', 'exports.double = (x) => 2 * x;');\n"
                "await fs.writeFile('/skills/BAD NAME.txt', 'x');\n"
                "await fs.writeFile('/workspace/scratch.txt', 'kept in the sandbox only');\n"
                "return 'saved'"}});
  ASSERT_EQ(saved["result"], "saved") << saved.dump();
  EXPECT_EQ(saved["saved"]["written"], json::array({"/skills/double/SKILL.md", "/skills/double/index.js"}))
      << saved.dump();
  ASSERT_EQ(saved["saved"]["refused"].size(), 1u) << saved.dump();
  EXPECT_EQ(saved["saved"]["refused"][0]["path"], "/skills/BAD NAME.txt");

  auto listed = http_call(port, "GET", "/skills?userId=alice");
  ASSERT_TRUE(listed);
  EXPECT_NE(listed->body.find("\"double\""), std::string::npos) << listed->body;

  json used = execute({{"userId", "alice"}, {"code", "return require('/skills/double').double(21)"}});
  EXPECT_EQ(used["result"], 42) << used.dump();
  json bob = execute({{"userId", "bob"}, {"code", "return (await fs.readdir('/skills')).includes('double')"}});
  EXPECT_EQ(bob["result"], false) << bob.dump();
}

// Code sent the moment the server answers sees every configured tool, and
// the probes say what is still starting.
TEST_F(ExecuteIntegration, CodeSentTheMomentTheServerAnswersSeesEveryTool) {
  ASSERT_EQ(server->stop(), 0);
  start_server({}, /*wait_for_pool=*/false);
  auto live = http_call(port, "GET", "/health/live");
  ASSERT_TRUE(live);
  EXPECT_EQ(live->status, 200);
  EXPECT_EQ(live->json()["status"], "alive");
  json r =
      execute({{"userId", "alice"}, {"code", "return (await list_mcp_tools()).map((t) => t.name.split('__')[0])"}});
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_NE(r["result"].dump().find("\"fs\""), std::string::npos) << r.dump();
  EXPECT_NE(r["result"].dump().find("\"memory\""), std::string::npos) << r.dump();
  // Every server has settled now: readiness is no longer waiting for one.
  auto ready = http_call(port, "GET", "/health/ready");
  ASSERT_TRUE(ready);
  auto body = ready->json();
  for (const char* name : {"mcp.fs", "mcp.memory"}) {
    EXPECT_EQ(body.value("notReady", json::array()).dump().find(name), std::string::npos) << body.dump();
  }
}

TEST_F(ExecuteIntegration, CodeErrorsComeBackWithTheAgentsStack) {
  json r = execute({{"userId", "alice"}, {"code", "function f() {\n  return null.x;\n}\nreturn f()"}});
  EXPECT_EQ(r["error"]["name"], "TypeError");
  EXPECT_NE(r["error"]["stack"].get<std::string>().find("agent-code.js:2"), std::string::npos) << r.dump();
}

TEST_F(ExecuteIntegration, ToolsAreDiscoveredAndCalledThroughTheRealServers) {
  json r = execute(
      {{"userId", "alice"},
       {"code",
        "const tools = await list_mcp_tools('write file');\n"
        "const details = await get_mcp_tool_details('fs__write_file');\n"
        "await callMCPTool('fs__write_file', {path: '" +
            (workspace / "hello.txt").string() +
            "', content: 'hello'});\n"
            "const text = await callMCPTool('fs__read_text_file', {path: '" +
            (workspace / "hello.txt").string() +
            "'});\n"
            "let refused = null;\n"
            "try { await callMCPTool('fs__read_text_file', {path: '/etc/passwd'}) } catch (e) { refused = e.name }\n"
            "return {first: tools[0].name, required: details.inputSchema.required, text, refused}"}});
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["result"]["first"], "fs__write_file");
  EXPECT_EQ(r["result"]["required"], json::array({"path", "content"}));
  EXPECT_NE(r["result"]["text"].dump().find("hello"), std::string::npos) << r.dump();
  EXPECT_EQ(r["result"]["refused"], "MCPToolError");
  EXPECT_EQ(r["toolCalls"].size(), 5u);
  EXPECT_EQ(r["sandbox"]["channel"], "socket");
}

TEST_F(ExecuteIntegration, TheCallSocketIsBoundOnceAndLeavesNothingBehind) {
  // Inside: the socket is the one host path, and its runtime holds the only
  // connection (the host stopped listening after the runtime's hello, in the pool).
  json r = execute({{"userId", "alice"},
                    {"sessionId", "sock"},
                    {"code",
                     "await list_mcp_tools();\n"
                     "const names = await fs.readdir('/run');\n"
                     "const second = await new Promise((resolve) => {\n"
                     "  const c = require('net').connect('/run/harness-calls.sock');\n"
                     "  c.on('connect', () => { c.destroy(); resolve('connected'); });\n"
                     "  c.on('error', (e) => resolve(e.code));\n"
                     "});\n"
                     "return {names, second}"}});
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["result"]["names"], json::array({"harness-calls.sock"}));
  EXPECT_EQ(r["result"]["second"], "ECONNREFUSED");
  EXPECT_EQ(r["sandbox"]["channel"], "socket");
  // Outside: a socket file is removed as soon as its runtime is bound.
  ASSERT_EQ(server->stop(), 0) << server->output();
  EXPECT_TRUE(fs::is_empty(workspace / "sockets"));
}

TEST_F(ExecuteIntegration, PiiIsTokenizedIntoTheSandboxAndRestoredForTools) {
  auto source = workspace / "customers.txt";
  std::ofstream(source) << "Ada Lovelace <ada@example.com> +1 415-555-2671\n";
  auto copy = workspace / "copy.txt";
  json r = execute({{"userId", "alice"},
                    {"code", "const text = await callMCPTool('fs__read_text_file', {path: '" + source.string() +
                                 "'});\n"
                                 "const body = typeof text === 'string' ? text : JSON.stringify(text);\n"
                                 "await callMCPTool('fs__write_file', {path: '" +
                                 copy.string() +
                                 "', content: body});\n"
                                 "return body"}});
  ASSERT_FALSE(r.contains("error")) << r.dump();
  std::string seen = r["result"].get<std::string>();
  // The sandbox (and so the caller of /execute and any LLM) saw tokens only...
  EXPECT_EQ(seen.find("ada@example.com"), std::string::npos) << seen;
  EXPECT_NE(seen.find("[EMAIL_1]"), std::string::npos) << seen;
  EXPECT_NE(seen.find("[PHONE_1]"), std::string::npos) << seen;
  // ...while the tool it passed the data on to received the real values.
  std::stringstream written;
  written << std::ifstream(copy).rdbuf();
  EXPECT_NE(written.str().find("ada@example.com"), std::string::npos) << written.str();
  EXPECT_NE(written.str().find("415-555-2671"), std::string::npos) << written.str();
}

// A server's error text echoes the argument it was given, which the harness
// had just restored to the real value: the code must see the token again.
TEST_F(ExecuteIntegration, ToolErrorTextIsCensoredLikeResults) {
  auto source = workspace / "contact.txt";
  std::ofstream(source) << "dana.q@example.com\n";
  json r = execute(
      {{"userId", "alice"},
       {"code", "const who = JSON.stringify(await callMCPTool('fs__read_text_file', {path: '" + source.string() +
                    "'})).match(/\\[EMAIL_\\d+\\]/)[0];\n"
                    "try { await callMCPTool('fs__read_text_file', {path: '" +
                    workspace.string() +
                    "/' + who + '.txt'}) } catch (e) { return {who, message: e.message} }\n"
                    "return 'no error'"}});
  ASSERT_FALSE(r.contains("error")) << r.dump();
  const auto seen = r["result"].dump();
  EXPECT_EQ(seen.find("dana.q@example.com"), std::string::npos) << seen;
  EXPECT_EQ(r["result"]["who"], "[EMAIL_1]") << seen;
  // The address stands in the message as a token ("dana.q@example.com.txt" may read as an address of its own).
  EXPECT_NE(r["result"]["message"].get<std::string>().find("[EMAIL_"), std::string::npos) << seen;
}

TEST_F(ExecuteIntegration, BadRequestsAreClearErrors) {
  EXPECT_EQ(execute({{"userId", "alice"}}, 400)["error"]["message"], "'code' is required");
  EXPECT_EQ(execute({{"userId", "alice"}, {"code", "1"}, {"sessionId", "../x"}}, 400)["error"]["code"],
            "invalid_request");
  auto no_user = http_call(port, "DELETE", "/sessions/x");
  ASSERT_TRUE(no_user);
  EXPECT_EQ(no_user->status, 400);
}

TEST_F(ExecuteIntegration, AUsersInstanceStartingDoesNotCountAgainstTheBlocksLimit) {
  // A limit shorter than node takes to start the memory server: the user's
  // first call starts their instance, and the block's clock waits for it.
  ASSERT_EQ(server->stop(), 0) << server->output();
  start_server({{"SANDBOX_TIMEOUT_MS", "400"}});
  json r = execute({{"userId", "newcomer"},
                    {"code",
                     "const t = Date.now();\n"
                     "const graph = await callMCPTool('memory__read_graph', {});\n"
                     "return {entities: graph.entities.length, tookMs: Date.now() - t};"}});
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["result"]["entities"], 0) << r.dump();
  auto health = server->call("GET", "/health")->json()["components"];
  EXPECT_GE(health["mcp.memory"]["instances"].get<int>(), 1) << health.dump();
  // A block that spends the limit itself still ends at it.
  json slow = execute({{"userId", "newcomer"}, {"code", "await new Promise((r) => setTimeout(r, 2000)); return 1"}});
  ASSERT_TRUE(slow.contains("error")) << slow.dump();
  EXPECT_EQ(slow["error"]["name"], "TimeoutError") << slow.dump();
}

TEST_F(ExecuteIntegration, WithoutACallSocketFolderTheProtocolStaysOnStdio) {
  ASSERT_EQ(server->stop(), 0) << server->output();
  fs::remove_all(workspace / "sockets");
  start_server({{"SANDBOX_CALL_SOCKET_DIR", ""}});
  json r = execute({{"userId", "alice"}, {"code", "return (await list_mcp_tools('read')).length > 0"}});
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["result"], true);
  EXPECT_EQ(r["sandbox"]["channel"], "stdio");
  EXPECT_FALSE(fs::exists(workspace / "sockets"));
}

TEST_F(ExecuteIntegration, AnUnusableCallSocketFolderLeavesSandboxesOnStdio) {
  ASSERT_EQ(server->stop(), 0) << server->output();
  start_server({{"SANDBOX_CALL_SOCKET_DIR", "/proc/no-such-folder/sockets"}});
  json r = execute({{"userId", "alice"}, {"code", "return (await list_mcp_tools('read')).length > 0"}});
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["sandbox"]["channel"], "stdio");
  auto health = http_call(port, "GET", "/health");
  ASSERT_TRUE(health);
  EXPECT_GE(health->json()["components"]["pool"]["linkFailures"].get<int>(), 1) << health->body;
  EXPECT_EQ(health->json()["components"]["pool"]["linked"], 0);
}

TEST_F(ExecuteIntegration, FloodingTheRealStdoutStopsTheSandboxWithAClearError) {
  // console.* is captured and capped; the process's own stdout is no longer
  // the protocol once the runtime is on its call socket, but a flood there
  // still ends the block instead of running to the deadline.
  json r = execute({{"userId", "alice"},
                    {"code",
                     "const out = require('process').stdout;\n"
                     "const block = ('x'.repeat(1023) + '\\n').repeat(1024);\n"
                     "for (let i = 0; i < 64; i++) await new Promise((r) => out.write(block, r));\n"
                     "return 'not reached'"}});
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["error"]["name"], "SandboxError");
  EXPECT_NE(r["error"]["message"].get<std::string>().find("stdout"), std::string::npos) << r.dump();
  // (A SandboxError, not a TimeoutError: it was stopped, not run to SANDBOX_TIMEOUT_MS.)
  EXPECT_EQ(r["sandbox"]["ended"], true);
}

TEST_F(ExecuteIntegration, NoContainerOutlivesTheServer) {
  execute({{"userId", "alice"}, {"sessionId", "left-open"}, {"code", "return 1"}});
  ASSERT_EQ(server->stop(), 0) << server->output();
  EXPECT_EQ(labelled_containers(owner), 0);
  // TearDown stops it again, which answers the same exit code.
}

// A block without a session has its sandbox removed after the answer, in
// the background: a server stopped right then must still wait for that
// removal. Several rounds, since the window is short.
TEST_F(ExecuteIntegration, NoContainerOutlivesAServerStoppedRightAfterAnAnswer) {
  for (int round = 0; round < 4; ++round) {
    if (round > 0) start_server({});
    json r = execute({{"userId", "alice"}, {"code", "return 1"}});
    ASSERT_FALSE(r.contains("error")) << r.dump();
    ASSERT_EQ(server->stop(), 0) << server->output();
    ASSERT_EQ(labelled_containers(owner), 0) << "round " << round;
  }
}

}  // namespace
}  // namespace harness::testing
