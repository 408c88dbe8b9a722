// Approvals end to end: the real binary with a tool policy that asks before
// the memory server's writes, keys made by its own `keys` command, the real
// sandbox and npm MCP servers, SQLite, and the fake LLM over real HTTP. A call
// waits in the live sandbox (past the block's own limit, with its variables
// kept) until the task's user approves it, denies it, lets it time out, or the
// task ends; every refusal of a decision is a clear error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "llm/fake_llm_server.hpp"
#include "llm/fake_llm_steps.hpp"
#include "support/harness_server.hpp"
#include "support/keys_command.hpp"

namespace harness::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
namespace fs = std::filesystem;

std::string bearer(const std::string& key) {
  return "Authorization: Bearer " + key + "\r\n";
}

// Creates an entity whose observation is a raw address the code holds.
const char* create_jane =
    "await callMCPTool('memory__create_entities', {entities: [{name: 'jane', entityType: 'person', "
    "observations: ['jane.doe@example.com']}]})";

class TaskApprovals : public ::testing::Test {
 protected:
  void SetUp() override {
    owner = "harness-approvals-" + std::to_string(getpid());
    root = fs::temp_directory_path() / owner;
    fs::create_directories(root / "files");
    keys = root / "keys" / "api-keys.json";
    alice = add_key(keys, "--user alice --name alice");
    bob = add_key(keys, "--user bob --name bob");
    admin = add_key(keys, "--admin --name ops");
    std::ofstream(root / "policy.json") << json{{"rules",
                                                 {{{"tool", "memory__create_entities"}, {"approval", "ask"}},
                                                  {{"tool", "memory__delete_*"}, {"approval", "ask"}}}}}
                                               .dump();
  }

  void TearDown() override {
    if (server) {
      EXPECT_EQ(server->stop(), 0) << server->output();
    }
    EXPECT_EQ(labelled_containers(owner), 0);
    fs::remove_all(root);
  }

  // SANDBOX_TIMEOUT_MS is 2 s: an approval that comes later shows that the
  // block's limit stood still while the call waited.
  void start(std::map<std::string, std::string> extra = {}) {
    std::map<std::string, std::string> env{{"API_KEYS_FILE", keys.string()},
                                           {"TOOL_POLICY_FILE", (root / "policy.json").string()},
                                           {"SANDBOX_TIMEOUT_MS", "2000"},
                                           {"RATE_LIMIT_PER_MINUTE", "0"}};
    for (auto& [k, v] : extra) env[k] = v;
    server = std::make_unique<harness_server>(
        end_to_end_env(owner, root.string(), (root / "files").string(), llm.openai_base_url(), env));
    ASSERT_TRUE(server->wait_healthy(1, {"store"}, 60s, bearer(admin))) << server->output();
  }

  std::optional<raw_response> call(const std::string& method, const std::string& target, const std::string& key,
                                   const json& body = nullptr) {
    return server->call(method, target, body.is_null() ? std::string() : body.dump(), 30s, bearer(key));
  }

  std::string submit(const std::string& task) {
    auto r = call("POST", "/task", alice, {{"task", task}, {"mode", "async"}});
    EXPECT_TRUE(r && r->status == 202) << (r ? r->body : "no answer");
    return r ? r->json().value("taskId", std::string()) : std::string();
  }

  // Polls the task until `n` approvals are pending; its view then.
  json wait_pending(const std::string& id, std::size_t n = 1) {
    json view;
    for (int i = 0; i < 300; ++i) {
      auto r = call("GET", "/tasks/" + id + "?transcript=false", alice);
      if (r && r->status == 200) {
        view = r->json();
        if (view.contains("pendingApprovals") && view["pendingApprovals"].size() >= n) return view;
      }
      std::this_thread::sleep_for(100ms);
    }
    ADD_FAILURE() << "no pending approval: " << view.dump();
    return view;
  }

  json decide(const std::string& id, const std::string& approval, const std::string& key, const json& body,
              int expected) {
    auto r = call("POST", "/tasks/" + id + "/approvals/" + approval, key, body);
    EXPECT_TRUE(r);
    if (!r) return {};
    EXPECT_EQ(r->status, expected) << r->body;
    return r->json();
  }

  json wait_ended(const std::string& id) {
    auto events = call("GET", "/tasks/" + id + "/events", alice);
    EXPECT_TRUE(events);
    auto r = call("GET", "/tasks/" + id + "?transcript=false", alice);
    return r ? r->json() : json();
  }

  // The events of a finished task, from the store.
  std::vector<json> events_of(const std::string& id, const std::string& type) {
    auto r = call("GET", "/tasks/" + id + "/events", alice);
    std::vector<json> out;
    if (!r) return out;
    std::istringstream lines(r->body);
    std::string line, event;
    while (std::getline(lines, line)) {
      if (line.starts_with("event: ")) event = line.substr(7);
      if (line.starts_with("data: ") && event == type) out.push_back(json::parse(line.substr(6)));
    }
    return out;
  }

  std::string memory_file() { return read_file(root / "memory.jsonl"); }

  std::string key_id(const std::string& key) {
    auto me = call("GET", "/me", key);
    return me ? me->json().value("keyId", std::string()) : std::string();
  }

  std::string owner, alice, bob, admin;
  fs::path root, keys;
  fake_llm_server llm;
  std::unique_ptr<harness_server> server;
};

TEST_F(TaskApprovals, AnApprovedCallWaitsPastTheBlocksLimitAndReachesTheMemoryServer) {
  start();
  llm.push(json::array({code_step(std::string("globalThis.before = 41;\nconst made = ") + create_jane +
                                  ";\nreturn {made: JSON.stringify(made).includes('jane')};"),
                        code_step("return globalThis.before + 1;"), answer_step("Saved jane.")}));
  auto id = submit("Remember jane.");
  auto view = wait_pending(id);
  EXPECT_EQ(view["status"], "awaiting_approval");
  const auto& a = view["pendingApprovals"][0];
  const std::string approval = a["id"];
  EXPECT_EQ(a["tool"], "memory__create_entities");
  EXPECT_EQ(a["reason"], "rule 1 (memory__create_entities)");
  // The arguments as the model sees them: the raw address the code held is a token there.
  const std::string args = a["arguments"].dump();
  EXPECT_NE(args.find("[EMAIL_1]"), std::string::npos) << args;
  EXPECT_EQ(args.find("jane.doe@example.com"), std::string::npos) << args;
  EXPECT_NE(a["code"].get<std::string>().find("globalThis.before = 41"), std::string::npos);
  EXPECT_TRUE(a["expiresAt"].is_string());
  EXPECT_EQ(memory_file().find("jane"), std::string::npos);  // nothing written yet

  // Refusals, each clear, none of which decides anything.
  auto others = decide(id, approval, bob, {{"decision", "approve"}}, 404);
  EXPECT_EQ(others["error"]["code"], "task_not_found");
  auto unknown = decide(id, "appr_000000000000", alice, {{"decision", "approve"}}, 404);
  EXPECT_EQ(unknown["error"]["code"], "approval_not_found");
  auto bad = decide(id, approval, alice, {{"decision", "maybe"}}, 400);
  EXPECT_EQ(bad["error"]["code"], "invalid_request");
  auto missing = decide(id, approval, alice, json::object(), 400);
  EXPECT_NE(missing["error"]["message"].get<std::string>().find("decision"), std::string::npos);

  // The block's own limit (2 s) passes while the call waits.
  std::this_thread::sleep_for(2500ms);
  auto ok = decide(id, approval, alice, {{"decision", "approve"}, {"reason", "looks right"}}, 200);
  EXPECT_EQ(ok["decision"], "approved");
  auto second = decide(id, approval, alice, {{"decision", "deny"}}, 409);
  EXPECT_EQ(second["error"]["code"], "approval_decided");

  auto ended = wait_ended(id);
  ASSERT_EQ(ended["status"], "succeeded") << ended.dump();
  // The tool got the real address; the sandbox (and its variable) lived on into the next block.
  EXPECT_NE(memory_file().find("jane.doe@example.com"), std::string::npos);
  auto requests = llm.requests();
  ASSERT_GE(requests.size(), 3u);
  EXPECT_NE(requests[1].body.find("made"), std::string::npos);
  EXPECT_NE(requests[2].body.find("42"), std::string::npos) << requests[2].body;

  auto asked = events_of(id, "approval_requested");
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0]["approvalId"], approval);
  auto decided = events_of(id, "approval_decided");
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_EQ(decided[0]["decision"], "approved");
  EXPECT_EQ(decided[0]["reason"], "looks right");
  EXPECT_EQ(decided[0]["keyId"], key_id(alice));
  EXPECT_EQ(decided[0]["scope"], "call");
  std::vector<std::string> statuses;
  for (const auto& s : events_of(id, "status")) statuses.push_back(s["status"]);
  EXPECT_EQ(statuses, (std::vector<std::string>{"running", "awaiting_approval", "running"}));
  // Decided and ended: nothing more to decide.
  auto after = decide(id, approval, alice, {{"decision", "approve"}}, 409);
  EXPECT_EQ(after["error"]["code"], "task_finished");
}

// The same pause in Python: the block waits for the decision past its limit
// (SANDBOX_TIMEOUT_MS is 2 s here), and the approved call reaches the server.
TEST_F(TaskApprovals, APythonBlockWaitsForItsApprovalToo) {
  start();
  llm.push(json::array({code_step("before = 41\n"
                                  "made = await call_mcp_tool('memory__create_entities', {'entities': [{'name': "
                                  "'jane', 'entityType': 'person', 'observations': ['jane.doe@example.com']}]})\n"
                                  "return {'made': 'jane' in str(made), 'before': before + 1}"),
                        answer_step("Saved jane.")}));
  auto r = call("POST", "/task", alice, {{"task", "Remember jane."}, {"mode", "async"}, {"language", "python"}});
  ASSERT_TRUE(r && r->status == 202) << (r ? r->body : "no answer");
  const std::string id = r->json()["taskId"];
  auto view = wait_pending(id);
  EXPECT_EQ(view["status"], "awaiting_approval");
  EXPECT_EQ(view["pendingApprovals"][0]["tool"], "memory__create_entities");
  std::this_thread::sleep_for(2500ms);  // past the block's own limit: the wait does not count
  decide(id, view["pendingApprovals"][0]["id"], alice, {{"decision", "approve"}}, 200);
  auto ended = wait_ended(id);
  ASSERT_EQ(ended["status"], "succeeded") << ended.dump();
  auto requests = llm.requests();
  ASSERT_GE(requests.size(), 2u);
  EXPECT_NE(requests[1].body.find("\\\"made\\\":true"), std::string::npos) << requests[1].body;
  EXPECT_NE(memory_file().find("jane.doe@example.com"), std::string::npos) << "the real value reached the server";
}

TEST_F(TaskApprovals, ADeniedCallThrowsInTheCodeWhichGoesOn) {
  start();
  llm.push(json::array({code_step(std::string("try { ") + create_jane +
                                  "; return 'made'; } catch (e) { return e.code + ': ' + e.message; }"),
                        answer_step("Not saved.")}));
  auto id = submit("Remember jane.");
  auto view = wait_pending(id);
  decide(id, view["pendingApprovals"][0]["id"], alice, {{"decision", "deny"}, {"reason", "not today"}}, 200);
  auto ended = wait_ended(id);
  ASSERT_EQ(ended["status"], "succeeded") << ended.dump();
  auto requests = llm.requests();
  ASSERT_GE(requests.size(), 2u);
  EXPECT_NE(requests[1].body.find("approval_denied: the call of memory__create_entities was denied: not today"),
            std::string::npos)
      << requests[1].body;
  EXPECT_EQ(memory_file().find("jane"), std::string::npos);
  auto decided = events_of(id, "approval_decided");
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_EQ(decided[0]["decision"], "denied");
}

TEST_F(TaskApprovals, NobodyDecidingInTimeDeniesTheCall) {
  start({{"APPROVAL_TIMEOUT_MS", "1500"}});
  llm.push(json::array({code_step(std::string("try { ") + create_jane +
                                  "; return 'made'; } catch (e) { return e.code + ': ' + e.message; }"),
                        answer_step("Not saved.")}));
  auto id = submit("Remember jane.");
  auto ended = wait_ended(id);
  ASSERT_EQ(ended["status"], "succeeded") << ended.dump();
  auto requests = llm.requests();
  ASSERT_GE(requests.size(), 2u);
  EXPECT_NE(requests[1].body.find("approval_timeout: nobody approved the call of memory__create_entities in time"),
            std::string::npos)
      << requests[1].body;
  auto decided = events_of(id, "approval_decided");
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_EQ(decided[0]["decision"], "timed_out");
  EXPECT_TRUE(decided[0]["keyId"].is_null());
  EXPECT_EQ(memory_file().find("jane"), std::string::npos);
}

TEST_F(TaskApprovals, AnApprovalForTheTaskCoversTheSameToolLaterButNoOther) {
  start();
  const std::string second =
      "await callMCPTool('memory__create_entities', {entities: [{name: 'joe', entityType: 'person', "
      "observations: ['x']}]})";
  llm.push(
      json::array({code_step(std::string(create_jane) + ";\n" + second + ";\nreturn 'two';"),
                   code_step("await callMCPTool('memory__delete_entities', {entityNames: ['joe']}); return 'gone';"),
                   answer_step("Done.")}));
  auto id = submit("Remember two people, then forget joe.");
  auto view = wait_pending(id);
  // An admin key may decide for any user's task.
  auto ok = decide(id, view["pendingApprovals"][0]["id"], admin, {{"decision", "approve"}, {"scope", "task"}}, 200);
  EXPECT_EQ(ok["scope"], "task");
  // The delete is another tool: it asks again.
  view = wait_pending(id);
  EXPECT_EQ(view["pendingApprovals"][0]["tool"], "memory__delete_entities");
  auto deny_for_task =
      decide(id, view["pendingApprovals"][0]["id"], alice, {{"decision", "deny"}, {"scope", "task"}}, 400);
  EXPECT_EQ(deny_for_task["error"]["code"], "invalid_request");
  decide(id, view["pendingApprovals"][0]["id"], alice, {{"decision", "approve"}}, 200);
  auto ended = wait_ended(id);
  ASSERT_EQ(ended["status"], "succeeded") << ended.dump();
  auto asked = events_of(id, "approval_requested");
  ASSERT_EQ(asked.size(), 2u);  // once for the two creates, once for the delete
  EXPECT_EQ(asked[0]["tool"], "memory__create_entities");
  EXPECT_EQ(asked[1]["tool"], "memory__delete_entities");
  EXPECT_EQ(events_of(id, "approval_decided")[0]["keyId"], key_id(admin));
  auto memory = memory_file();
  EXPECT_NE(memory.find("jane"), std::string::npos);
  EXPECT_EQ(memory.find("\"joe\""), std::string::npos) << memory;  // created, then deleted
}

TEST_F(TaskApprovals, CancellingOrStoppingTheServerWhileACallWaitsEndsTheTask) {
  start();
  // No answer step: the task is cancelled before it asks the LLM again.
  llm.push(json::array({code_step(std::string(create_jane) + "; return 'made';")}));
  auto id = submit("Remember jane.");
  wait_pending(id);
  auto cancelled = call("DELETE", "/tasks/" + id, alice);
  ASSERT_TRUE(cancelled && cancelled->status == 202) << (cancelled ? cancelled->body : "");
  auto ended = wait_ended(id);
  EXPECT_EQ(ended["status"], "cancelled") << ended.dump();
  EXPECT_FALSE(ended.contains("pendingApprovals"));
  EXPECT_EQ(events_of(id, "approval_decided")[0]["decision"], "cancelled");

  // A server stopping while a call waits: the task ends interrupted, as tasks in flight do.
  llm.push(json::array({code_step(std::string(create_jane) + "; return 'made';")}));
  auto waiting = submit("Remember jane again.");
  wait_pending(waiting);
  EXPECT_EQ(server->stop(), 0) << server->output();
  server.reset();
  start();
  auto after = call("GET", "/tasks/" + waiting + "?transcript=false", alice);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->json()["status"], "interrupted") << after->body;
  EXPECT_EQ(memory_file().find("jane"), std::string::npos);
}

}  // namespace
}  // namespace harness::testing
