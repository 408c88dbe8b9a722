// The agent end to end: the real mcp-harness binary with the real Docker
// engine and sandbox image, the real MCP servers from npm, the real PII censor
// and SQLite store, and a fake LLM over real HTTP whose scripted replies write
// real code. After each test no container of ours is left.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "llm/fake_llm_server.hpp"
#include "llm/fake_llm_steps.hpp"
#include "support/harness_server.hpp"

namespace harness::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class AgentEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    owner = "harness-agent-" + std::to_string(getpid());
    root = fs::temp_directory_path() / owner;
    files = root / "files";
    fs::create_directories(files);
    start_server();
  }

  void TearDown() override {
    if (server) {
      EXPECT_EQ(server->stop(), 0) << server->output();
    }
    EXPECT_EQ(labelled_containers(owner), 0);
    fs::remove_all(root);
  }

  void start_server(std::map<std::string, std::string> extra = {}, bool wait_for_pool = true) {
    server = std::make_unique<harness_server>(
        end_to_end_env(owner, root.string(), files.string(), llm.openai_base_url(), extra));
    // A warm sandbox, so tests see the pooled path. The MCP servers are not
    // waited for: a task sent while they start waits for them itself.
    if (wait_for_pool) {
      ASSERT_TRUE(server->wait_healthy(1, {"store"})) << server->call("GET", "/health")->body;
    }
  }

  json post_task(json body, int expected_status = 200) {
    auto r = server->call("POST", "/task", body.dump(), 60s);
    EXPECT_TRUE(r);
    if (!r) return {};
    EXPECT_EQ(r->status, expected_status) << r->body;
    return r->json();
  }

  json get(const std::string& target, int expected_status = 200) {
    auto r = server->call("GET", target);
    EXPECT_TRUE(r);
    if (!r) return {};
    EXPECT_EQ(r->status, expected_status) << r->body;
    return r->json();
  }

  // Waits for the task to end: its event stream (GET /tasks/{id}/events)
  // closes once the task has ended and every event was sent. Then its view.
  json wait_ended(const std::string& id) {
    auto events = server->call("GET", "/tasks/" + id + "/events", {}, 60s);
    EXPECT_TRUE(events) << "the event stream of task " << id << " did not end";
    auto view = get("/tasks/" + id + "?transcript=false");
    auto status = view.value("status", std::string());
    if (status == "queued" || status == "running") ADD_FAILURE() << "task " << id << " did not end: " << view.dump();
    return view;
  }

  // Every request body the fake LLM received, as one string.
  std::string all_llm_requests() const {
    std::string out;
    for (const auto& r : llm.requests()) out += r.body + "\n";
    return out;
  }

  // The text of the last tool message of LLM request `n`.
  std::string last_tool_result(std::size_t n) const {
    auto requests = llm.requests();
    if (n >= requests.size()) return {};
    const auto& messages = requests[n].json["messages"];
    for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
      if ((*it)["role"] == "tool") return (*it)["content"].get<std::string>();
    }
    return {};
  }

  std::string owner;
  fs::path root, files;
  fake_llm_server llm;
  std::unique_ptr<harness_server> server;
};

TEST_F(AgentEndToEnd, DiscoversToolsReadsAFileComputesAndAnswers) {
  std::ofstream(files / "numbers.txt") << "3\n4\n5";
  llm.push(json::array({code_step("const tools = await list_mcp_tools('read file');\n"
                                  "const {content: text} = await callMCPTool('fs__read_text_file', {path: '" +
                                  (files / "numbers.txt").string() +
                                  "'});\n"
                                  "console.log('found', tools.some((t) => t.name === 'fs__read_text_file'));\n"
                                  "return {sum: text.split('\\n').map(Number).reduce((a, b) => a + b, 0)};"),
                        answer_step("The sum is 12.")}));
  auto r = post_task({{"userId", "alice"}, {"task", "Add up the numbers in numbers.txt"}});
  EXPECT_EQ(r["status"], "succeeded") << r.dump();
  EXPECT_EQ(r["result"], "The sum is 12.");
  EXPECT_EQ(r["turns"], 2);
  EXPECT_EQ(r["usage"]["inputTokens"], 220);
  EXPECT_EQ(r["usage"]["outputTokens"], 30);
  EXPECT_TRUE(r["taskId"].get<std::string>().starts_with("task_"));
  EXPECT_TRUE(r["conversationId"].get<std::string>().starts_with("conv_"));

  auto requests = llm.requests();
  ASSERT_EQ(requests.size(), 2u);
  // The prompt names the servers but leaves the tool catalogue to discovery.
  std::string system = requests[0].json["messages"][0]["content"];
  EXPECT_NE(system.find(": fs, memory\n"), std::string::npos) << system;
  EXPECT_NE(system.find("list_mcp_tools"), std::string::npos);
  EXPECT_EQ(requests[0].json["tools"][0]["function"]["name"], "execute_code");
  auto observation = last_tool_result(1);
  EXPECT_NE(observation.find("found true"), std::string::npos) << observation;
  EXPECT_NE(observation.find("returned: {\"sum\":12}"), std::string::npos) << observation;

  // The stored view has the transcript as the LLM saw it.
  auto view = get("/tasks/" + r["taskId"].get<std::string>());
  EXPECT_EQ(view["status"], "succeeded");
  EXPECT_EQ(view["transcript"].size(), 5u) << view["transcript"].dump();  // system, user, assistant, tool, assistant
  auto listed = get("/tasks?userId=alice");
  ASSERT_EQ(listed["tasks"].size(), 1u);
  EXPECT_EQ(listed["tasks"][0]["taskId"], r["taskId"]);
  // The agent's tasks show in /metrics.
  auto metrics = server->call("GET", "/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("harness_tasks_total{status=\"succeeded\"} 1\n"), std::string::npos) << metrics->body;
  EXPECT_NE(metrics->body.find("harness_tasks_running 0\n"), std::string::npos) << metrics->body;
  EXPECT_NE(metrics->body.find("harness_llm_requests_total{provider=\"openai\",outcome=\"ok\"} 2\n"),
            std::string::npos);
}

TEST_F(AgentEndToEnd, APythonTaskRunsPythonBlocksWithTheSameTools) {
  std::ofstream(files / "numbers.txt") << "3\n4\n5";
  llm.push(json::array({code_step("tools = await list_mcp_tools('read file')\n"
                                  "got = await call_mcp_tool('fs__read_text_file', {'path': '" +
                                  (files / "numbers.txt").string() +
                                  "'})\n"
                                  "print('found', any(t['name'] == 'fs__read_text_file' for t in tools))\n"
                                  "return {'sum': sum(int(x) for x in got['content'].split())}"),
                        answer_step("The sum is 12.")}));
  auto r = post_task({{"userId", "alice"}, {"task", "Add up the numbers in numbers.txt"}, {"language", "python"}});
  EXPECT_EQ(r["status"], "succeeded") << r.dump();
  EXPECT_EQ(r["result"], "The sum is 12.");
  auto requests = llm.requests();
  ASSERT_EQ(requests.size(), 2u);
  std::string system = requests[0].json["messages"][0]["content"];
  EXPECT_EQ(system.rfind("Write Python", 0), 0u) << system;
  EXPECT_EQ(requests[0].json["tools"][0]["function"]["description"],
            "Runs Python; returns its output and return value.");
  auto observation = last_tool_result(1);
  EXPECT_NE(observation.find("found True"), std::string::npos) << observation;
  EXPECT_NE(observation.find("returned: {\"sum\":12}"), std::string::npos) << observation;
  // The task's events say which runtime ran its code.
  auto events = server->call("GET", "/tasks/" + r["taskId"].get<std::string>() + "/events", {}, 30s);
  ASSERT_TRUE(events);
  EXPECT_NE(events->body.find("\"language\":\"python\""), std::string::npos) << events->body;
  // And so does the task record, in the response and when read again.
  EXPECT_EQ(r["language"], "python") << r.dump();
  auto stored = server->call("GET", "/tasks/" + r["taskId"].get<std::string>(), {}, 30s);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->json()["language"], "python") << stored->body;
  // An unknown language is refused before anything runs.
  auto bad = post_task({{"userId", "alice"}, {"task", "x"}, {"language", "cobol"}}, 400);
  EXPECT_NE(bad.dump().find("javascript, python"), std::string::npos) << bad.dump();
}

TEST_F(AgentEndToEnd, PiiReachesTheToolButNeverTheLlmAndAFollowUpKeepsTheVault) {
  std::ofstream(files / "contact.txt") << "Write to jane.doe@example.com about the invoice.";
  llm.push(json::array({code_step("const {content: text} = await callMCPTool('fs__read_text_file', {path: '" +
                                  (files / "contact.txt").string() +
                                  "'});\n"
                                  "const email = text.match(/\\[EMAIL_\\d+\\]/)[0];\n"
                                  "await callMCPTool('fs__write_file', {path: '" +
                                  (files / "out.txt").string() +
                                  "', content: 'to: ' + email});\n"
                                  "return {email};"),
                        answer_step("I wrote to [EMAIL_1].")}));
  auto first = post_task({{"userId", "alice"}, {"task", "Note who to write to. My phone is +1 415 555 0100."}});
  EXPECT_EQ(first["status"], "succeeded") << first.dump();
  // The caller gets the real value back; the tool got it too.
  EXPECT_EQ(first["result"], "I wrote to jane.doe@example.com.");
  EXPECT_EQ(read_file(files / "out.txt"), "to: jane.doe@example.com");
  // The LLM saw tokens only: neither the tool result's email nor the caller's phone.
  auto sent = all_llm_requests();
  EXPECT_EQ(sent.find("jane.doe@example.com"), std::string::npos);
  EXPECT_EQ(sent.find("555 0100"), std::string::npos);
  EXPECT_NE(sent.find("[EMAIL_1]"), std::string::npos);
  EXPECT_NE(sent.find("[PHONE_1]"), std::string::npos);

  // A follow-up in the same conversation sees the earlier messages and the same tokens.
  llm.reset();
  llm.push(answer_step("It was [EMAIL_1]."));
  auto second =
      post_task({{"userId", "alice"}, {"task", "Who did you write to?"}, {"conversationId", first["conversationId"]}});
  EXPECT_EQ(second["status"], "succeeded") << second.dump();
  EXPECT_EQ(second["conversationId"], first["conversationId"]);
  EXPECT_EQ(second["result"], "It was jane.doe@example.com.");
  auto followup = llm.requests();
  ASSERT_EQ(followup.size(), 1u);
  EXPECT_NE(followup[0].body.find("Note who to write to"), std::string::npos);
  EXPECT_NE(followup[0].body.find("I wrote to [EMAIL_1]."), std::string::npos);
  EXPECT_EQ(followup[0].body.find("jane.doe@example.com"), std::string::npos);

  // The conversation belongs to alice: to bob it does not exist.
  auto other = post_task({{"userId", "bob"}, {"task", "x"}, {"conversationId", first["conversationId"]}}, 404);
  EXPECT_EQ(other["error"]["code"], "conversation_not_found");
  EXPECT_EQ(other["error"]["message"].get<std::string>().find("belongs"), std::string::npos);
  auto missing = post_task({{"userId", "alice"}, {"task", "x"}, {"conversationId", "conv_nope"}}, 404);
  EXPECT_EQ(missing["error"]["code"], "conversation_not_found");
}

// PII at rest: the conversation's vault is sealed (AES-256-GCM), events carry
// tokens, so a raw value a tool returned is nowhere in the database's files
// when the answer does not name it; a follow-up still restores it.
TEST_F(AgentEndToEnd, TheDatabaseHoldsNoRawValueOfAToolResult) {
  std::ofstream(files / "contact.txt") << "Write to mallory.quinn@example.org today.";
  llm.push(json::array({code_step("const {content: text} = await callMCPTool('fs__read_text_file', {path: '" +
                                  (files / "contact.txt").string() +
                                  "'});\n"
                                  "const email = text.match(/\\[EMAIL_\\d+\\]/)[0];\n"
                                  "await callMCPTool('fs__write_file', {path: '" +
                                  (files / "note.txt").string() +
                                  "', content: email});\n"
                                  "console.log('found', email);\n"
                                  "return {email};"),
                        answer_step("Done.")}));
  auto first = post_task({{"userId", "alice"}, {"task", "Save the contact in note.txt"}});
  ASSERT_EQ(first["status"], "succeeded") << first.dump();
  EXPECT_EQ(read_file(files / "note.txt"), "mallory.quinn@example.org");  // the tool got the value
  ASSERT_TRUE(server->stop());                                            // the store's files closed and checkpointed
  for (const char* name : {"harness.db", "harness.db-wal"}) {
    if (!fs::exists(root / name)) continue;
    EXPECT_EQ(read_file(root / name).find("mallory.quinn"), std::string::npos) << name << " holds the raw address";
  }
  EXPECT_TRUE(fs::exists(root / "vault.key"));
  // A new process with the same key file opens the vault: the follow-up restores the value.
  start_server();
  llm.reset();
  llm.push(answer_step("It was [EMAIL_1]."));
  auto second = post_task({{"userId", "alice"}, {"task", "Who was it?"}, {"conversationId", first["conversationId"]}});
  EXPECT_EQ(second["result"], "It was mallory.quinn@example.org.") << second.dump();
}

// STORE_RESULTS=tokenized: the caller of the live task gets the values; the
// store (its record, its final and end events) keeps the tokens.
TEST_F(AgentEndToEnd, TokenizedResultsKeepTheAnswersValuesOutOfTheStore) {
  ASSERT_TRUE(server->stop());
  start_server({{"STORE_RESULTS", "tokenized"}});
  std::ofstream(files / "contact.txt") << "Ask erin.vale@example.net for the invoice.";
  llm.push(json::array({code_step("const {content: text} = await callMCPTool('fs__read_text_file', {path: '" +
                                  (files / "contact.txt").string() +
                                  "'});\n"
                                  "return text.match(/\\[EMAIL_\\d+\\]/)[0];"),
                        answer_step("Ask [EMAIL_1].")}));
  auto live = post_task({{"userId", "alice"}, {"task", "Who has the invoice?"}});
  ASSERT_EQ(live["status"], "succeeded") << live.dump();
  EXPECT_EQ(live["result"], "Ask erin.vale@example.net.");
  const std::string id = live["taskId"];
  ASSERT_TRUE(server->stop());
  for (const char* name : {"harness.db", "harness.db-wal"}) {
    if (!fs::exists(root / name)) continue;
    EXPECT_EQ(read_file(root / name).find("erin.vale"), std::string::npos) << name << " holds the raw address";
  }
  start_server({{"STORE_RESULTS", "tokenized"}});
  EXPECT_EQ(get("/tasks/" + id + "?transcript=false")["result"], "Ask [EMAIL_1].");
  auto events = server->call("GET", "/tasks/" + id + "/events", {}, 30s);
  ASSERT_TRUE(events);
  EXPECT_NE(events->body.find("\"result\":\"Ask [EMAIL_1].\""), std::string::npos) << events->body;
  EXPECT_EQ(events->body.find("erin.vale"), std::string::npos) << events->body;
}

TEST_F(AgentEndToEnd, ATimedOutBlockIsReportedAndTheNextRunsInAFreshSandbox) {
  llm.push(json::array(
      {code_step("globalThis.kept = 1;\nwhile (true) {}"), code_step("return typeof kept;"), answer_step("done")}));
  auto r = post_task({{"userId", "alice"}, {"task", "loop"}});
  EXPECT_EQ(r["status"], "succeeded") << r.dump();
  auto timed_out = last_tool_result(1);
  EXPECT_NE(timed_out.find("TimeoutError"), std::string::npos) << timed_out;
  auto fresh = last_tool_result(2);
  EXPECT_NE(fresh.find("fresh one"), std::string::npos) << fresh;
  EXPECT_NE(fresh.find("returned: \"undefined\""), std::string::npos) << fresh;
}

TEST_F(AgentEndToEnd, AnLlmErrorInTheMiddleFailsTheTaskWithItsCode) {
  llm.push(json::array({code_step("return 1 + 1;"),
                        {{"error", {{"status", 400}, {"type", "invalid_request_error"}, {"message", "bad turn"}}}}}));
  auto r = post_task({{"userId", "alice"}, {"task", "add"}});
  EXPECT_EQ(r["status"], "failed") << r.dump();
  EXPECT_EQ(r["error"]["code"], "llm_bad_request");
  EXPECT_EQ(r["turns"], 2);
  EXPECT_TRUE(r["result"].is_null());
}

TEST_F(AgentEndToEnd, CancellingStopsTheBlockInFlightAndRemovesTheSandbox) {
  llm.push(code_step("await new Promise((resolve) => setTimeout(resolve, 60000));"));
  llm.push(code_step("await new Promise((resolve) => setTimeout(resolve, 60000));"));
  auto accepted = post_task({{"userId", "alice"}, {"task", "wait"}, {"mode", "async"}}, 202);
  std::string id = accepted["taskId"];
  // Wait until the block runs (the transcript holds the assistant's call), then cancel.
  for (int i = 0; i < 100; ++i) {
    if (get("/tasks/" + id)["transcript"].size() >= 3) break;
    std::this_thread::sleep_for(50ms);
  }
  auto cancel = server->call("DELETE", "/tasks/" + id + "?userId=alice");
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 202) << cancel->body;
  auto view = wait_ended(id);
  EXPECT_EQ(view["status"], "cancelled") << view.dump();
  EXPECT_EQ(view["error"]["code"], "cancelled");
  auto again = server->call("DELETE", "/tasks/" + id);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 409);
}

TEST_F(AgentEndToEnd, StreamsEventsAndServesThemAgainAfterARestart) {
  llm.push(json::array({code_step("console.log('working');\nreturn 6 * 7;"), answer_step("42")}));
  auto streamed =
      server->call("POST", "/task", json{{"userId", "alice"}, {"task", "compute"}, {"mode", "stream"}}.dump(), 60s);
  ASSERT_TRUE(streamed);
  EXPECT_EQ(streamed->status, 200);
  EXPECT_EQ(streamed->header("content-type"), "text/event-stream; charset=utf-8");
  std::string id = streamed->header("x-task-id");
  const auto& body = streamed->body;
  for (const char* type : {"event: status", "event: llm_start", "event: code", "event: log", "event: observation",
                           "event: final", "event: end"}) {
    EXPECT_NE(body.find(type), std::string::npos) << type << " missing in:\n" << body;
  }
  EXPECT_LT(body.find("event: code"), body.find("event: final"));

  // A restart loses nothing finished: the task and its events are read from the store.
  ASSERT_EQ(server->stop(), 0);
  server.reset();
  start_server();
  auto view = get("/tasks/" + id);
  EXPECT_EQ(view["status"], "succeeded");
  EXPECT_EQ(view["result"], "42");
  auto resumed = server->call("GET", "/tasks/" + id + "/events", {}, 10s, "Last-Event-ID: 3\r\n");
  ASSERT_TRUE(resumed);
  EXPECT_EQ(resumed->body.find("id: 3\n"), std::string::npos);
  EXPECT_NE(resumed->body.find("id: 4\n"), std::string::npos);
  EXPECT_NE(resumed->body.find("event: end"), std::string::npos);
}

TEST_F(AgentEndToEnd, LimitsAnswer429WithRetryAfter) {
  ASSERT_EQ(server->stop(), 0);
  server.reset();
  start_server({{"AGENT_MAX_CONCURRENT", "1"}, {"AGENT_QUEUE_SIZE", "1"}, {"AGENT_MAX_TASKS_PER_USER", "1"}});
  // A slow LLM keeps the first task running.
  llm.push(json{{"reply", {{"text", "slow"}}}, {"delayMs", 3000}});
  llm.push(answer_step("queued one"));
  auto first = post_task({{"userId", "alice"}, {"task", "one"}, {"mode", "async"}}, 202);
  auto same_user = post_task({{"userId", "alice"}, {"task", "two"}, {"mode", "async"}}, 429);
  EXPECT_EQ(same_user["error"]["code"], "user_busy");
  auto queued = post_task({{"userId", "bob"}, {"task", "three"}, {"mode", "async"}}, 202);
  EXPECT_EQ(queued["status"], "queued");
  auto r = server->call("POST", "/task", json{{"userId", "carol"}, {"task", "four"}, {"mode", "async"}}.dump());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 429);
  EXPECT_EQ(r->json()["error"]["code"], "agent_busy");
  EXPECT_FALSE(r->header("retry-after").empty());
  EXPECT_EQ(wait_ended(first["taskId"])["status"], "succeeded");
  EXPECT_EQ(wait_ended(queued["taskId"])["result"], "queued one");
}

TEST_F(AgentEndToEnd, EachLimitEndsTheTaskWithItsOwnStatus) {
  ASSERT_EQ(server->stop(), 0);
  server.reset();
  start_server({{"AGENT_MAX_TURNS", "2"}, {"AGENT_TOKEN_BUDGET", "1000"}, {"AGENT_TASK_TIMEOUT_MS", "2000"}});
  // Two turns of code and no answer: max_turns (the second block is not run).
  llm.push(json::array({code_step("return 1;"), code_step("return 2;")}));
  auto turns = post_task({{"userId", "alice"}, {"task", "loop"}});
  EXPECT_EQ(turns["status"], "max_turns") << turns.dump();
  EXPECT_EQ(turns["error"]["code"], "max_turns");
  // One turn that spends more than the budget: budget_exceeded before the next LLM call.
  llm.reset();
  llm.push({{"reply",
             {{"toolCalls", json::array({{{"name", "execute_code"}, {"arguments", {{"code", "return 1"}}}}})},
              {"usage", {{"inputTokens", 900}, {"outputTokens", 200}}}}}});
  auto budget = post_task({{"userId", "alice"}, {"task", "spend"}});
  EXPECT_EQ(budget["status"], "budget_exceeded") << budget.dump();
  EXPECT_EQ(llm.requests().size(), 1u);
  // An LLM slower than the task's wall-clock limit: timed_out, the call aborted.
  llm.reset();
  // The reply would come after ten minutes: had the call been waited out
  // rather than aborted, the request below would fail on its own 60 s limit.
  llm.push(json{{"reply", {{"text", "too late"}}}, {"delayMs", 600000}});
  auto slow = post_task({{"userId", "alice"}, {"task", "wait"}});
  EXPECT_EQ(slow["status"], "timed_out") << slow.dump();
  EXPECT_EQ(slow["error"]["code"], "task_timeout");
}

// The moment the server answers, a task already sees every configured tool:
// the task waits for the MCP servers still starting instead of running without them.
TEST_F(AgentEndToEnd, ATaskPostedTheMomentTheServerAnswersSeesEveryTool) {
  ASSERT_EQ(server->stop(), 0);
  server.reset();
  start_server({}, /*wait_for_pool=*/false);
  llm.push(json::array(
      {code_step("return (await list_mcp_tools()).map((t) => t.name.split('__')[0]);"), answer_step("done")}));
  auto r = post_task({{"userId", "alice"}, {"task", "which servers?"}});
  ASSERT_EQ(r["status"], "succeeded") << r.dump();
  std::string system = llm.requests()[0].json["messages"][0]["content"];
  EXPECT_EQ(system.find("(none are connected right now)"), std::string::npos) << system;
  EXPECT_NE(system.find(": fs, memory\n"), std::string::npos) << system;
  auto listed = last_tool_result(1);
  EXPECT_NE(listed.find("\"fs\""), std::string::npos) << listed;
  EXPECT_NE(listed.find("\"memory\""), std::string::npos) << listed;
}

// Output and calls of a timer left by block 1 neither end the task nor reach block 2.
TEST_F(AgentEndToEnd, ATimerOfAnEarlierBlockDoesNotBreakTheTask) {
  llm.push(
      json::array({code_step("setTimeout(() => { console.log('late'); callMCPTool('fs__list_allowed_directories', {})"
                             ".catch((e) => { globalThis.late = e.code }) }, 50);\nreturn 1;"),
                   code_step("await utils.sleep(300);\nreturn late;"), answer_step("done")}));
  auto r = post_task({{"userId", "alice"}, {"task", "timers"}});
  EXPECT_EQ(r["status"], "succeeded") << r.dump();
  auto second = last_tool_result(2);
  EXPECT_NE(second.find("returned: \"stale_call\""), std::string::npos) << second;
  EXPECT_EQ(second.find("late"), std::string::npos) << second;
}

TEST_F(AgentEndToEnd, ALongObservationIsCutAndKeptWholeInTheWorkspace) {
  ASSERT_EQ(server->stop(), 0);
  server.reset();
  start_server({{"AGENT_OBSERVATION_MAX_CHARS", "500"}});
  // The block takes the name `fs` for the callback API: the harness's own
  // saving of the full text must not depend on what the code named `fs`.
  llm.push(
      json::array({code_step("const fs = require('fs');\nconsole.log('x'.repeat(3000));\nreturn 'long';"),
                   code_step("return fs.readFileSync('/workspace/observations/turn-1.txt', 'utf8').length > 3000;"),
                   answer_step("done")}));
  auto r = post_task({{"userId", "alice"}, {"task", "print a lot"}});
  ASSERT_EQ(r["status"], "succeeded") << r.dump();
  auto cut = last_tool_result(1);
  EXPECT_LE(cut.size(), 500u);
  EXPECT_NE(cut.find("Full text: /workspace/observations/turn-1.txt"), std::string::npos) << cut;
  // The next block reads the whole text from its workspace, and the host keeps a copy.
  EXPECT_NE(last_tool_result(2).find("returned: true"), std::string::npos) << last_tool_result(2);
  std::string id = r["taskId"];
  EXPECT_GT(fs::file_size(root / "workspace" / id / "observations/turn-1.txt"), 3000u);
}

// Raw values the code gets hold of (here it builds an address itself) reach
// the LLM only as tokens, on every path: printed, returned, thrown, in a file
// name, and in a skill's description in the system prompt.
TEST_F(AgentEndToEnd, RawPiiFromCodeReachesTheLlmOnlyAsTokens) {
  fs::create_directories(root / "skills" / "users" / "alice" / "contact");
  std::ofstream(root / "skills" / "users" / "alice" / "contact" / "SKILL.md")
      << "---\nname: contact\ndescription: Ask ops.lead@example.org or call +1 415 555 0199\n---\n";
  llm.push(json::array(
      {code_step("const address = ['gus', 'example.net'].join('@');\nconsole.log('printed', address);\n"
                 "await fs.writeFile('/workspace/' + address + '.txt', 'x');\nreturn {address};"),
       code_step("throw new Error('failed for ' + ['gus', 'example.net'].join('@'));"), answer_step("done")}));
  auto r = post_task({{"userId", "alice"}, {"task", "find the address"}});
  ASSERT_EQ(r["status"], "succeeded") << r.dump();
  auto sent = all_llm_requests();
  for (const char* raw : {"gus@example.net", "ops.lead@example.org", "555 0199"}) {
    EXPECT_EQ(sent.find(raw), std::string::npos) << raw << " reached the LLM";
  }
  // (The skill's address was censored first, in the prompt: this one is the second.)
  EXPECT_NE(last_tool_result(1).find("printed [EMAIL_2]"), std::string::npos) << last_tool_result(1);
  EXPECT_NE(last_tool_result(1).find("returned: {\"address\":\"[EMAIL_2]\"}"), std::string::npos)
      << last_tool_result(1);
  // (A name like "gus@example.net.txt" is an address itself, and refused as a file name.)
  EXPECT_NE(last_tool_result(1).find("file NOT saved: /workspace/[EMAIL_"), std::string::npos) << last_tool_result(1);
  EXPECT_NE(last_tool_result(2).find("failed for [EMAIL_2]"), std::string::npos) << last_tool_result(2);
  std::string system = llm.requests()[0].json["messages"][0]["content"];
  EXPECT_NE(system.find("contact: Ask [EMAIL_1] or call [PHONE_1]"), std::string::npos) << system;
  // The events the caller streams carry the same tokens.
  std::string id = r["taskId"];
  auto events = server->call("GET", "/tasks/" + id + "/events?userId=alice");
  ASSERT_TRUE(events);
  EXPECT_EQ(events->body.find("gus@example.net"), std::string::npos);
}

TEST_F(AgentEndToEnd, TheShippedReplayDemoRuns) {
  ASSERT_EQ(server->stop(), 0);
  server.reset();
  fs::copy_file(source_path("examples/replay-demo/scores.csv"), files / "scores.csv");
  start_server({{"LLM_PROVIDER", "replay"}, {"LLM_REPLAY_FILE", source_path("examples/replay-demo/session.jsonl")}});
  auto r = post_task({{"userId", "demo"},
                      {"task",
                       "Which team in scores.csv has the highest score, and what is the total? Remember the "
                       "winner in the knowledge graph."}});
  EXPECT_EQ(r["status"], "succeeded") << r.dump();
  EXPECT_EQ(r["result"],
            "gamma has the highest score (8 of 16 over 3 teams). I saved gamma in the knowledge graph; its contact is "
            "gus@example.net.");
  // The code really ran: the memory server holds the winner with the real address.
  auto graph = read_file(root / "memory.jsonl");
  EXPECT_NE(graph.find("\"name\":\"gamma\""), std::string::npos)
      << graph << "\n"
      << get("/tasks/" + r["taskId"].get<std::string>()).dump();
  EXPECT_NE(graph.find("contact gus@example.net"), std::string::npos) << graph;
  auto view = get("/tasks/" + r["taskId"].get<std::string>());
  EXPECT_NE(view["transcript"].dump().find("[EMAIL_3]"), std::string::npos);
  EXPECT_EQ(view["transcript"].dump().find("gus@example.net"), std::string::npos);
}

TEST_F(AgentEndToEnd, SkillsPersistPerUserAndHostileWriteBacksAreRefused) {
  const std::string save_skill =
      "await fs.mkdir('/skills/csv-stats', {recursive: true});\n"
      "await fs.writeFile('/skills/csv-stats/SKILL.md', '---\\nname: csv-stats\\ndescription: Counts the rows of CSV "
      "text\\n---\\nconst {rows} = require(\"/skills/csv-stats/index.js\");\\n');\n"
      "await fs.writeFile('/skills/csv-stats/index.js', 'exports.rows = (text) => text.trim().split(\"\\\\n\").length "
      "- 1;');\n"
      "return 'saved';";
  llm.push(json::array({code_step(save_skill), answer_step("saved")}));
  auto saved = post_task({{"userId", "alice"}, {"task", "Save a CSV row counter as a skill"}});
  ASSERT_EQ(saved["status"], "succeeded") << saved.dump();
  EXPECT_NE(last_tool_result(1).find("saved files: /skills/csv-stats/SKILL.md, /skills/csv-stats/index.js"),
            std::string::npos)
      << last_tool_result(1);
  auto listed = get("/skills?userId=alice");
  EXPECT_NE(listed.dump().find("\"csv-stats\""), std::string::npos) << listed.dump();

  // A later task of alice sees it in its prompt and requires it.
  llm.reset();
  llm.push(json::array(
      {code_step("const {rows} = require('/skills/csv-stats/index.js');\nreturn rows('a,b\\n1,2\\n3,4\\n');"),
       answer_step("2 rows")}));
  auto used = post_task({{"userId", "alice"}, {"task", "Count the rows"}});
  EXPECT_EQ(used["status"], "succeeded") << used.dump();
  auto requests = llm.requests();
  ASSERT_FALSE(requests.empty());
  std::string system = requests[0].json["messages"][0]["content"];
  EXPECT_NE(system.find("\ncsv-stats: Counts the rows of CSV text"), std::string::npos) << system;
  EXPECT_NE(last_tool_result(1).find("returned: 2"), std::string::npos) << last_tool_result(1);

  // Bob neither sees nor loads it.
  llm.reset();
  llm.push(json::array(
      {code_step("let found = true;\ntry { require('/skills/csv-stats/index.js') } catch (e) { found = false }\n"
                 "return {found, skills: (await fs.readdir('/skills')).sort()};"),
       answer_step("no")}));
  auto other = post_task({{"userId", "bob"}, {"task", "Count the rows"}});
  EXPECT_EQ(other["status"], "succeeded") << other.dump();
  std::string bob_system = llm.requests()[0].json["messages"][0]["content"];
  EXPECT_EQ(bob_system.find("csv-stats"), std::string::npos);
  EXPECT_NE(last_tool_result(1).find("returned: {\"found\":false"), std::string::npos) << last_tool_result(1);
  EXPECT_EQ(get("/skills?userId=bob").dump().find("csv-stats"), std::string::npos);

  // Hostile write-backs are refused and reported; the valid file of the same block is kept.
  llm.reset();
  llm.push(json::array({code_step("await fs.symlink('/etc/passwd', '/skills/csv-stats/link');\n"
                                  "await fs.writeFile('/workspace/big.bin', Buffer.alloc(2 * 1024 * 1024));\n"
                                  "await fs.mkdir('/skills/examples/evil', {recursive: true});\n"
                                  "await fs.writeFile('/skills/examples/evil/x.js', '1');\n"
                                  "await fs.writeFile('/workspace/ok.txt', 'fine');\n"
                                  "return 'tried';"),
                        answer_step("tried")}));
  auto hostile = post_task({{"userId", "alice"}, {"task", "Try things"}});
  EXPECT_EQ(hostile["status"], "succeeded") << hostile.dump();
  auto report = last_tool_result(1);
  for (const char* refused : {"file NOT saved: /skills/csv-stats/link", "file NOT saved: /workspace/big.bin",
                              "file NOT saved: /skills/examples/evil/x.js"}) {
    EXPECT_NE(report.find(refused), std::string::npos) << refused << " in:\n" << report;
  }
  EXPECT_NE(report.find("saved files: /workspace/ok.txt"), std::string::npos) << report;
  std::string id = hostile["taskId"];
  EXPECT_FALSE(fs::exists(fs::symlink_status(root / "skills/users/alice/csv-stats/link")));
  EXPECT_FALSE(fs::exists(root / "workspace" / id / "big.bin"));
  EXPECT_FALSE(fs::exists(root / "skills/examples/evil"));
  EXPECT_EQ(read_file(root / "workspace" / id / "ok.txt"), "fine");
  auto task_files = get("/tasks/" + id + "/files");
  EXPECT_NE(task_files.dump().find("ok.txt"), std::string::npos) << task_files.dump();
  auto download = server->call("GET", "/tasks/" + id + "/files/ok.txt?userId=alice");
  ASSERT_TRUE(download);
  EXPECT_EQ(download->body, "fine");
  auto not_bobs = server->call("GET", "/tasks/" + id + "/files?userId=bob");
  ASSERT_TRUE(not_bobs);
  EXPECT_EQ(not_bobs->status, 404);  // another user's task: the same answer as a missing one
}

}  // namespace
}  // namespace harness::testing
