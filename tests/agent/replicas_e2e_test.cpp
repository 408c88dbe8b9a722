// Two replicas sharing one PostgreSQL store (STORE_URL), on one machine: the
// real binary twice (different ports and SANDBOX_OWNERs), a real PostgreSQL
// server started by the test on a unix socket, the real Docker engine and the
// fake LLM over real HTTP. A task posted to A is streamed and followed up on
// B; per-user limits hold across both; a session lives where its sandbox is;
// A killed mid-task leaves B to mark the task interrupted once A's lease has
// lapsed; a restarted A removes only its own leftover containers; skills and
// task workspaces saved through A are read through B.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "llm/fake_llm_server.hpp"
#include "llm/fake_llm_steps.hpp"
#include "two_replicas_fixture.hpp"

namespace harness::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
namespace fs = std::filesystem;

class Replicas : public two_replicas {
 protected:
  void SetUp() override {
    // A short lease, so that the crash test need not wait 30 s; one task per user at a time.
    prepare("replicas", {{"TASK_LEASE_MS", "1500"}, {"AGENT_MAX_TASKS_PER_USER", "1"}});
    start_both();
  }

  // Polls GET /tasks/{id} on `server` until the task has `status`; its view then.
  static json wait_status(harness_server& server, const std::string& id, const std::string& status,
                          std::chrono::seconds limit = 30s) {
    json view;
    for (auto until = std::chrono::steady_clock::now() + limit; std::chrono::steady_clock::now() < until;) {
      view = call(server, "GET", "/tasks/" + id + "?transcript=false", nullptr, 200);
      if (view.value("status", "") == status) return view;
      std::this_thread::sleep_for(100ms);
    }
    ADD_FAILURE() << "task " << id << " never reached " << status << ": " << view.dump();
    return view;
  }
};

TEST_F(Replicas, ATaskPostedToAIsStreamedFromBAndFollowedUpOnB) {
  // The first reply comes late, so B's stream starts while the task runs on A.
  llm.push(json{{"reply", {{"text", "the answer is 42"}}}, {"delayMs", 1500}});
  llm.push(answer_step("you asked about 42"));
  auto posted = call(*a, "POST", "/task", {{"userId", "alice"}, {"task", "what is 6 x 7?"}, {"mode", "async"}}, 202);
  const std::string id = posted["taskId"];
  ASSERT_FALSE(id.empty());

  // B follows A's task through the store's notifications until it ends.
  auto streamed = b->call("GET", "/tasks/" + id + "/events", {}, 60s);
  ASSERT_TRUE(streamed);
  EXPECT_EQ(streamed->status, 200);
  EXPECT_NE(streamed->body.find("event: final"), std::string::npos) << streamed->body;
  EXPECT_NE(streamed->body.find("the answer is 42"), std::string::npos) << streamed->body;
  EXPECT_NE(streamed->body.find("event: end"), std::string::npos) << streamed->body;
  auto view = call(*b, "GET", "/tasks/" + id, nullptr, 200);
  EXPECT_EQ(view["status"], "succeeded");
  EXPECT_EQ(view["result"], "the answer is 42");

  // Resuming on B after the last event seen skips what was delivered.
  auto resumed = b->call("GET", "/tasks/" + id + "/events", {}, 10s, "Last-Event-ID: 1\r\n");
  ASSERT_TRUE(resumed);
  EXPECT_EQ(resumed->body.find("id: 1\n"), std::string::npos);
  EXPECT_NE(resumed->body.find("event: final"), std::string::npos);

  // The follow-up runs on B with the conversation A stored.
  auto follow_up =
      call(*b, "POST", "/task",
           {{"userId", "alice"}, {"task", "what did I ask?"}, {"conversationId", posted["conversationId"]}}, 200);
  EXPECT_EQ(follow_up["status"], "succeeded") << follow_up.dump();
  EXPECT_EQ(follow_up["result"], "you asked about 42");
  auto requests = llm.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_NE(requests[1].body.find("what is 6 x 7?"), std::string::npos) << requests[1].body;
  EXPECT_NE(requests[1].body.find("the answer is 42"), std::string::npos) << requests[1].body;
}

TEST_F(Replicas, LimitsAndTheHolderOfTasksAndSessionsHoldAcrossReplicas) {
  // One task per user (AGENT_MAX_TASKS_PER_USER=1), counted over both replicas.
  llm.push(json{{"reply", {{"text", "slow"}}}, {"delayMs", 2000}});
  auto first = call(*a, "POST", "/task", {{"userId", "carol"}, {"task", "one"}, {"mode", "async"}}, 202);
  auto refused = call(*b, "POST", "/task", {{"userId", "carol"}, {"task", "two"}, {"mode", "async"}}, 429);
  EXPECT_EQ(refused["error"]["code"], "user_busy") << refused.dump();
  // Only A can cancel A's task: B names it.
  auto elsewhere = call(*b, "DELETE", "/tasks/" + first["taskId"].get<std::string>(), nullptr, 421);
  EXPECT_EQ(elsewhere["error"]["code"], "task_elsewhere");
  EXPECT_NE(elsewhere["error"]["message"].get<std::string>().find(owner_a), std::string::npos) << elsewhere.dump();
  wait_status(*b, first["taskId"], "succeeded");

  // An /execute session lives on the replica that opened it.
  auto opened = call(*a, "POST", "/execute",
                     {{"userId", "dave"}, {"code", "globalThis.n = 41; return 1"}, {"sessionId", "s1"}}, 200);
  EXPECT_EQ(opened["result"], 1);
  auto on_b = call(*b, "POST", "/execute", {{"userId", "dave"}, {"code", "return n + 1"}, {"sessionId", "s1"}}, 421);
  EXPECT_EQ(on_b["error"]["code"], "session_elsewhere");
  EXPECT_NE(on_b["error"]["message"].get<std::string>().find(owner_a), std::string::npos) << on_b.dump();
  auto on_a = call(*a, "POST", "/execute", {{"userId", "dave"}, {"code", "return n + 1"}, {"sessionId", "s1"}}, 200);
  EXPECT_EQ(on_a["result"], 42);
  // The same id of another user is another session, free on B.
  call(*b, "POST", "/execute", {{"userId", "erin"}, {"code", "return 2"}, {"sessionId", "s1"}}, 200);
  // Once A ends it, B may open one under that id.
  call(*a, "DELETE", "/sessions/s1?userId=dave", nullptr, 200);
  auto moved = call(*b, "POST", "/execute", {{"userId", "dave"}, {"code", "return 3"}, {"sessionId", "s1"}}, 200);
  EXPECT_EQ(moved["result"], 3) << moved.dump();
  call(*b, "DELETE", "/sessions/s1?userId=dave", nullptr, 200);
  call(*b, "DELETE", "/sessions/s1?userId=erin", nullptr, 200);

  // An MCP-face session names its replica in its id; B sends the client there.
  json init = {{"jsonrpc", "2.0"},
               {"id", 1},
               {"method", "initialize"},
               {"params",
                {{"protocolVersion", "2025-06-18"},
                 {"capabilities", json::object()},
                 {"clientInfo", {{"name", "test"}, {"version", "1"}}}}}};
  const std::string accept = "Accept: application/json, text/event-stream\r\n";
  auto initialized = a->call("POST", "/mcp", init.dump(), 30s, accept);
  ASSERT_TRUE(initialized);
  ASSERT_EQ(initialized->status, 200) << initialized->body;
  const std::string session = initialized->header("mcp-session-id");
  EXPECT_TRUE(session.ends_with("." + owner_a)) << session;
  json list = {{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/list"}};
  auto misdirected = b->call("POST", "/mcp", list.dump(), 30s, accept + "Mcp-Session-Id: " + session + "\r\n");
  ASSERT_TRUE(misdirected);
  EXPECT_EQ(misdirected->status, 421) << misdirected->body;
  EXPECT_NE(misdirected->body.find(owner_a), std::string::npos) << misdirected->body;
  auto ended = a->call("DELETE", "/mcp", {}, 30s, "Mcp-Session-Id: " + session + "\r\n");
  ASSERT_TRUE(ended);
  EXPECT_LT(ended->status, 300) << ended->body;
}

TEST_F(Replicas, SkillsAndWorkspacesSavedOnAAreSeenFromB) {
  // A block on A saves a skill of grace's: SKILL.md and a code file.
  auto saved = call(*a, "POST", "/execute",
                    {{"userId", "grace"},
                     {"code",
                      "await fs.mkdir('/skills/row-count', {recursive: true});\n"
                      "await fs.writeFile('/skills/row-count/SKILL.md', '---\\nname: row-count\\ndescription: Counts "
                      "rows.\\n---\\nUse count().\\n');\n"
                      "await fs.writeFile('/skills/row-count/index.js', 'exports.count = (r) => r.length;\\n');\n"
                      "return 'saved';"}},
                    200);
  EXPECT_EQ(saved["result"], "saved") << saved.dump();

  // B lists it and serves its files.
  auto listed = call(*b, "GET", "/skills?userId=grace", nullptr, 200);
  json mine;
  for (const auto& skill : listed["skills"]) {
    if (skill["name"] == "row-count") mine = skill;
  }
  EXPECT_EQ(mine["owner"], "user") << listed.dump();
  EXPECT_EQ(mine["description"], "Counts rows.") << listed.dump();
  EXPECT_EQ(mine["files"], json::array({"SKILL.md", "index.js"})) << listed.dump();
  auto code = b->call("GET", "/skills/grace/row-count/files/index.js");
  ASSERT_TRUE(code);
  EXPECT_EQ(code->status, 200) << code->body;
  EXPECT_EQ(code->body, "exports.count = (r) => r.length;\n");
  // Another user still sees none of it.
  EXPECT_EQ(call(*b, "GET", "/skills?userId=heidi", nullptr, 200).dump().find("row-count"), std::string::npos);

  // A sandbox on B has it under /skills.
  auto used =
      call(*b, "POST", "/execute",
           {{"userId", "grace"}, {"code", "return await fs.readFile('/skills/row-count/index.js', 'utf8');"}}, 200);
  EXPECT_EQ(used["result"], "exports.count = (r) => r.length;\n") << used.dump();

  // A task run on A writes its workspace; B serves the file.
  llm.push(code_step("await fs.writeFile('/workspace/out.txt', 'made on A'); return 'written';"));
  llm.push(answer_step("wrote out.txt"));
  auto task = call(*a, "POST", "/task", {{"userId", "grace"}, {"task", "write a file"}}, 200);
  ASSERT_EQ(task["status"], "succeeded") << task.dump();
  const std::string id = task["taskId"];
  auto file = b->call("GET", "/tasks/" + id + "/files/out.txt");
  ASSERT_TRUE(file);
  EXPECT_EQ(file->status, 200) << file->body;
  EXPECT_EQ(file->body, "made on A");
  auto files = call(*b, "GET", "/tasks/" + id + "/files", nullptr, 200);
  EXPECT_NE(files.dump().find("out.txt"), std::string::npos) << files.dump();
}

TEST_F(Replicas, AReplicaKilledMidTaskLeavesItInterruptedByTheOtherOnceItsLeaseLapses) {
  // A's task waits on a slow LLM reply when A dies.
  llm.push(json{{"reply", {{"text", "too late"}}}, {"delayMs", 20000}});
  auto posted = call(*a, "POST", "/task", {{"userId", "frank"}, {"task", "a long one"}, {"mode", "async"}}, 202);
  const std::string id = posted["taskId"];
  wait_status(*b, id, "running");
  a->kill_hard();

  // B's upkeep finds the lease lapsed (1.5 s without renewal) and ends the task.
  auto view = wait_status(*b, id, "interrupted");
  EXPECT_EQ(view["error"]["code"], "interrupted") << view.dump();
  // B's stream of it ends too.
  auto streamed = b->call("GET", "/tasks/" + id + "/events", {}, 30s);
  ASSERT_TRUE(streamed);
  EXPECT_EQ(streamed->status, 200);
  // The user may go on, on B.
  llm.reset();
  llm.push(answer_step("done"));
  auto again = call(*b, "POST", "/task", {{"userId", "frank"}, {"task", "again"}}, 200);
  EXPECT_EQ(again["status"], "succeeded") << again.dump();

  // A left its pooled sandbox behind; a restarted A sweeps its own containers, never B's.
  EXPECT_GE(labelled_containers(owner_a), 1);
  a = start(owner_a);
  EXPECT_GE(labelled_containers(owner_b), 1);
  EXPECT_EQ(call(*a, "GET", "/tasks/" + id + "?transcript=false", nullptr, 200)["status"], "interrupted");
}

}  // namespace
}  // namespace harness::testing
