// Several users end to end: the real binary with the shipped servers/mcp.json
// (fs and memory are "scope": "user"), the real sandbox and npm servers, a
// fake LLM over HTTP. What one user's code stores through a tool, another
// user's code cannot list, search or read, whether it comes through
// /execute, a task or the MCP face.
#include <gtest/gtest.h>

#include <filesystem>

#include "llm/fake_llm_steps.hpp"
#include "users_e2e_fixture.hpp"

namespace harness::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
namespace fs = std::filesystem;

class SeveralUsers : public users_e2e {
 protected:
  void SetUp() override {
    make_root("harness-users");
    fs::create_directories(root / "memory");
    // Each user's instance gets its own root and memory file: ${user.id}
    // in these values is filled in per instance, as in the shipped defaults.
    start((root / "files" / "${user.id}").string(),
          {{"MEMORY_FILE_PATH", (root / "memory" / "${user.id}.jsonl").string()}, {"SANDBOX_TIMEOUT_MS", "20000"}});
  }

  json health() { return server->call("GET", "/health")->json()["components"]; }

  std::string files_of(const std::string& user) const { return (root / "files" / user).string(); }
};

TEST_F(SeveralUsers, WhatOneUserStoresAnotherCannotListSearchOrRead) {
  auto stored = execute("alice",
                        "await callMCPTool('memory__create_entities', {entities: [{name: 'Project Falcon', "
                        "entityType: 'project', observations: ['budget 42k']}]});\n"
                        "await callMCPTool('fs__write_file', {path: '" +
                            files_of("alice") +
                            "/plan.txt', content: 'falcon launch plan'});\n"
                            "return 'stored';");
  ASSERT_EQ(stored["result"], "stored") << stored.dump();

  auto seen = execute("bob",
                      "const graph = await callMCPTool('memory__read_graph', {});\n"
                      "const found = await callMCPTool('memory__search_nodes', {query: 'Falcon'});\n"
                      "const mine = await callMCPTool('fs__list_directory', {path: '" +
                          files_of("bob") +
                          "'});\n"
                          "let stolen;\n"
                          "try { stolen = await callMCPTool('fs__read_text_file', {path: '" +
                          files_of("alice") +
                          "/plan.txt'}); } catch (e) { stolen = 'refused: ' + e.message; }\n"
                          "return {graph, found, mine, stolen};");
  const std::string bob = seen.dump();
  EXPECT_FALSE(seen.contains("error")) << bob;
  EXPECT_EQ(bob.find("Falcon"), std::string::npos) << bob;
  EXPECT_EQ(bob.find("budget"), std::string::npos) << bob;
  EXPECT_EQ(bob.find("plan.txt\\n"), std::string::npos) << bob;
  EXPECT_EQ(bob.find("falcon launch plan"), std::string::npos) << bob;
  EXPECT_NE(seen["result"]["stolen"].get<std::string>().find("refused"), std::string::npos) << bob;

  auto again = execute("alice", "return await callMCPTool('memory__search_nodes', {query: 'Falcon'});");
  EXPECT_NE(again.dump().find("budget 42k"), std::string::npos) << again.dump();

  // Two processes per server; /health counts them and names no user.
  auto components = health();
  EXPECT_EQ(components["mcp.memory"]["instances"], 2) << components.dump();
  auto pids = components["mcp.memory"]["pids"];
  ASSERT_EQ(pids.size(), 2u) << components.dump();
  EXPECT_NE(pids[0], pids[1]);
  EXPECT_EQ(components.dump().find("alice"), std::string::npos);
  EXPECT_TRUE(fs::exists(root / "memory" / "alice.jsonl"));
  EXPECT_FALSE(fs::exists(root / "memory" / "bob.jsonl")) << "bob only read: his graph was never written";
}

TEST_F(SeveralUsers, ATaskSeesOnlyItsOwnUsersData) {
  execute("alice",
          "await callMCPTool('memory__create_entities', {entities: [{name: 'Heron', entityType: 'bird', "
          "observations: ['nests by the lake']}]});");
  llm.push(json::array({code_step("const g = await callMCPTool('memory__read_graph', {});\n"
                                  "return {entities: g.entities.length, names: g.entities.map((e) => e.name)};"),
                        answer_step("Nothing stored yet.")}));
  auto r = server->call("POST", "/task", json{{"userId", "carol"}, {"task", "What is in my memory?"}}.dump(), 90s);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->json()["status"], "succeeded") << r->body;
  std::string seen_by_llm;
  for (const auto& request : llm.requests()) seen_by_llm += request.body;
  EXPECT_NE(seen_by_llm.find("memory"), std::string::npos) << "the prompt names the user's servers";
  EXPECT_NE(seen_by_llm.find(R"(\"entities\":0)"), std::string::npos) << seen_by_llm;
  EXPECT_EQ(seen_by_llm.find("Heron"), std::string::npos) << seen_by_llm;
  EXPECT_EQ(seen_by_llm.find("lake"), std::string::npos) << seen_by_llm;
}

TEST_F(SeveralUsers, TheMcpFaceActsForItsSessionsUser) {
  execute("alice",
          "await callMCPTool('memory__create_entities', {entities: [{name: 'Osprey', entityType: 'bird', "
          "observations: ['dives for fish']}]});");
  const std::string accept = "Accept: application/json, text/event-stream\r\n";
  json init = {{"jsonrpc", "2.0"},
               {"id", 1},
               {"method", "initialize"},
               {"params",
                {{"protocolVersion", "2025-11-25"},
                 {"capabilities", json::object()},
                 {"clientInfo", {{"name", "test"}, {"version", "1"}}}}}};
  auto opened = server->call("POST", "/mcp?userId=dave", init.dump(), 30s, accept);
  ASSERT_TRUE(opened);
  ASSERT_EQ(opened->status, 200) << opened->body;
  const std::string session = "Mcp-Session-Id: " + opened->header("mcp-session-id") + "\r\n";
  auto rpc = [&](int id, const std::string& tool, json args) {
    json call = {{"jsonrpc", "2.0"},
                 {"id", id},
                 {"method", "tools/call"},
                 {"params", {{"name", tool}, {"arguments", std::move(args)}}}};
    auto r = server->call("POST", "/mcp", call.dump(), 90s, accept + session);
    EXPECT_TRUE(r);
    return r ? r->body : std::string();
  };
  auto search = rpc(2, "search_tools", {{"query", "memory graph"}});
  EXPECT_NE(search.find("memory__read_graph"), std::string::npos) << search;
  auto ran = rpc(3, "execute_code", {{"code", "return await callMCPTool('memory__read_graph', {});"}});
  EXPECT_NE(ran.find("entities"), std::string::npos) << ran;
  EXPECT_EQ(ran.find("Osprey"), std::string::npos) << ran;
  EXPECT_EQ(ran.find("fish"), std::string::npos) << ran;
  server->call("DELETE", "/mcp", {}, 30s, session);
}

}  // namespace
}  // namespace harness::testing
