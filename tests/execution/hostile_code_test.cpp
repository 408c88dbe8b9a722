// Hostile code against the production path (pooled sandbox, REPL session,
// call socket): frames that do not fit the protocol, output and tool calls
// of blocks that have finished, a session ended while it runs. Each case
// used to wedge a session for good or hold up the next block.
#include <gtest/gtest.h>

#include <fstream>
#include <future>
#include <thread>

#include "execution/execute_fixture.hpp"

namespace harness::testing {
namespace {

// Code that finds the runtime's call socket among its own file descriptors
// and writes raw frames on it, as hostile code can: `raw(frame)`.
const std::string raw_socket_writer =
    "const rawFs = require('fs');\n"
    "const sockets = rawFs.readdirSync('/proc/self/fd').filter((fd) => {\n"
    "  try { return rawFs.readlinkSync('/proc/self/fd/' + fd).startsWith('socket:'); } catch { return false; }\n"
    "});\n"
    "globalThis.raw = (frame) => { for (const fd of sockets) rawFs.writeSync(Number(fd), JSON.stringify(frame) + "
    "'\\n'); };\n";

json session_block(const std::string& session, const std::string& code) {
  return {{"userId", "mallory"}, {"sessionId", session}, {"code", code}};
}

TEST_F(ExecuteIntegration, LateOutputOfAFinishedBlockDoesNotWedgeTheSession) {
  json first = execute(session_block("w1", "setTimeout(() => console.log(1), 50); return 1"));
  EXPECT_EQ(first["result"], 1) << first.dump();
  // The timer fires while this block runs: its output is block 1's, dropped.
  json second = execute(session_block("w1", "await utils.sleep(200); return 2"));
  EXPECT_EQ(second["result"], 2) << second.dump();
  EXPECT_EQ(second["logs"], json::array()) << second.dump();
  EXPECT_FALSE(second.contains("error")) << second.dump();
  auto ended = http_call(port, "DELETE", "/sessions/w1?userId=mallory");
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->status, 200) << ended->body;
}

TEST_F(ExecuteIntegration, FramesWithNullFieldsOnTheCallSocketAreHarmless) {
  json first = execute(session_block("w2", raw_socket_writer +
                                               "if (sockets.length === 0) throw new Error('no call socket found');\n"
                                               "raw({type: 'log', exec: null, text: 'null exec'});\n"
                                               "raw({type: 'log', exec: 'x1', level: null, text: null});\n"
                                               "raw({type: 'done', exec: null, ok: null});\n"
                                               "raw({type: 'call', id: 99, exec: null, op: 'call_tool', name: null});\n"
                                               "setTimeout(() => raw({type: 'log', exec: null, text: 'later'}), 20);\n"
                                               "return 1"));
  EXPECT_EQ(first["result"], 1) << first.dump();
  EXPECT_EQ(first["sandbox"]["channel"], "socket") << first.dump();
  json second = execute(session_block("w2", "await utils.sleep(100); return 2"));
  EXPECT_EQ(second["result"], 2) << second.dump();
  auto ended = http_call(port, "DELETE", "/sessions/w2?userId=mallory");
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->status, 200) << ended->body;
}

TEST_F(ExecuteIntegration, AFrameThatDoesNotBelongEndsTheSandboxAndTheSessionStartsOver) {
  execute(session_block("w3", "globalThis.kept = 1; return 1"));
  json broken = execute(session_block("w3", raw_socket_writer + "raw({type: 'ready'});\nawait utils.sleep(1000);"));
  EXPECT_EQ(broken["error"]["name"], "ProtocolError") << broken.dump();
  EXPECT_EQ(broken["sandbox"]["ended"], true);
  json fresh = execute(session_block("w3", "return typeof kept"));
  EXPECT_EQ(fresh["result"], "undefined") << fresh.dump();
  auto ended = http_call(port, "DELETE", "/sessions/w3?userId=mallory");
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->status, 200) << ended->body;
}

// The sandbox timeout is 4 s here: a stale call that held up the block would
// end it as a TimeoutError instead.
TEST_F(ExecuteIntegration, ALateToolCallIsRefusedAtOnceAsStale) {
  json first = execute(session_block(
      "w4",
      "setTimeout(() => callMCPTool('fs__list_allowed_directories', {})"
      ".then(() => { globalThis.late = 'served' }, (e) => { globalThis.late = e.code }), 50);\nreturn 1"));
  EXPECT_EQ(first["result"], 1) << first.dump();
  json second = execute(session_block("w4", "await utils.sleep(300); return late"));
  EXPECT_EQ(second["result"], "stale_call") << second.dump();
  EXPECT_EQ(second["toolCalls"], json::array()) << second.dump();

  // The same call written raw, with an old block's id: the host refuses it and the block goes on.
  json raw =
      execute(session_block("w4", raw_socket_writer + "raw({type: 'call', id: 1234, exec: 'x1', op: 'call_tool', "
                                                      "name: 'fs__list_allowed_directories', args: {}});\n"
                                                      "await utils.sleep(100);\nreturn 'went on'"));
  EXPECT_EQ(raw["result"], "went on") << raw.dump();
  EXPECT_FALSE(raw.contains("error")) << raw.dump();
}

// One user cannot take every session slot (the wedged sessions of an earlier
// defect locked every user out once sixteen were stuck).
TEST_F(ExecuteIntegration, OneUserCannotHoldEverySession) {
  ASSERT_EQ(server->stop(), 0);
  start_server({{"SANDBOX_MAX_SESSIONS_PER_USER", "2"}});
  for (const char* id : {"u1", "u2"}) EXPECT_EQ(execute(session_block(id, "return 1"))["result"], 1);
  json refused = execute(session_block("u3", "return 1"), 429);
  EXPECT_EQ(refused["error"]["code"], "too_many_sessions");
  EXPECT_NE(refused["error"]["message"].get<std::string>().find("mallory"), std::string::npos) << refused.dump();
  // Another user still gets one.
  json other = execute({{"userId", "alice"}, {"sessionId", "a1"}, {"code", "return 2"}});
  EXPECT_EQ(other["result"], 2) << other.dump();
}

// One-shot blocks (no sessionId) each may cold-start a container: one user
// runs at most its share at once, open mode included; one past it waits for
// SANDBOX_RUN_QUEUE_MS, then gets 429 with Retry-After.
TEST_F(ExecuteIntegration, OneUserRunsAtMostItsShareOfOneShotSandboxes) {
  ASSERT_EQ(server->stop(), 0);
  start_server({{"SANDBOX_MAX_RUNNING_PER_USER", "1"}, {"SANDBOX_RUN_QUEUE_MS", "0"}, {"SANDBOX_TIMEOUT_MS", "20000"}});
  fs::path started = workspace / "one-shot-started";
  fs::path release = workspace / "one-shot-release";
  auto running = std::async(std::launch::async, [&] {
    return http_call(port, "POST", "/execute",
                     json{{"userId", "mallory"},
                          {"code", "await callMCPTool('fs__write_file', {path: '" + started.string() +
                                       "', content: 'x'});\n"
                                       "while (true) { try { await callMCPTool('fs__get_file_info', {path: '" +
                                       release.string() +
                                       "'}); break; } catch (e) { await utils.sleep(50); } }\n"
                                       "return 'done'"}}
                         .dump(),
                     "application/json", "", 30s);
  });
  for (int i = 0; i < 400 && !fs::exists(started); ++i) std::this_thread::sleep_for(50ms);
  ASSERT_TRUE(fs::exists(started));
  auto refused =
      http_call(port, "POST", "/execute", json{{"userId", "mallory"}, {"code", "return 1"}}.dump(), "application/json");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 429) << refused->body;
  EXPECT_EQ(refused->json()["error"]["code"], "too_many_running");
  EXPECT_EQ(refused->header("retry-after"), "5");
  // Another user has a share of their own.
  EXPECT_EQ(execute({{"userId", "alice"}, {"code", "return 2"}})["result"], 2);
  std::ofstream(release) << "go";
  auto first = running.get();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->json()["result"], "done") << first->body;
  // The share is free again once the block answered.
  EXPECT_EQ(execute({{"userId", "mallory"}, {"code", "return 3"}})["result"], 3);
}

TEST_F(ExecuteIntegration, ASessionRunningABlockCanBeEnded) {
  execute(session_block("w5", "globalThis.kept = 1; return 1"));
  fs::path started = workspace / "started";
  auto running = std::async(std::launch::async, [&] {
    return http_call(port, "POST", "/execute",
                     session_block("w5", "await callMCPTool('fs__write_file', {path: '" + started.string() +
                                             "', content: 'x'});\nwhile (true) {}")
                         .dump(),
                     "application/json");
  });
  // The block signals through the filesystem server that it is running.
  for (int i = 0; i < 200 && !fs::exists(started); ++i) std::this_thread::sleep_for(50ms);
  ASSERT_TRUE(fs::exists(started));
  auto ended = http_call(port, "DELETE", "/sessions/w5?userId=mallory");
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->status, 200) << ended->body;
  auto block = running.get();
  ASSERT_TRUE(block);
  EXPECT_EQ(block->json()["error"]["name"], "SandboxError") << block->body;
  json fresh = execute(session_block("w5", "return typeof kept"));
  EXPECT_EQ(fresh["result"], "undefined") << fresh.dump();
  auto again = http_call(port, "DELETE", "/sessions/w5?userId=mallory");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200) << again->body;
}

// A tool that reports progress forever: progress extends an MCP call's
// deadline, but never past the block's own, so the call fails while the
// block still has time to catch it, and the sandbox lives on.
TEST_F(ExecuteIntegration, AToolCallEndsBeforeItsBlocksDeadlineWhateverProgressItReports) {
  ASSERT_EQ(server->stop(), 0);
  fs::path config = workspace / "mcp-hostile.json";
  std::ofstream(config)
      << json{{"mcpServers",
               {{"hostile", {{"command", "node"}, {"args", {source_path("tests/mcp/hostile_server.js"), "normal"}}}}}}}
             .dump();
  start_server({{"MCP_CONFIG", config.string()}, {"MCP_REQUEST_TIMEOUT_MS", "1000"}, {"MCP_MAX_REQUEST_MS", "600000"}});
  json r = execute(session_block("w6",
                                 "try { await callMCPTool('hostile__progress_forever', {}); return 'answered' }\n"
                                 "catch (e) { return e.code }"));
  EXPECT_EQ(r["result"], "mcp_timeout") << r.dump();
  EXPECT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["sandbox"]["ended"], false) << r.dump();
}

}  // namespace
}  // namespace harness::testing
