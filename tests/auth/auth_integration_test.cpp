// Caller identity end to end: the real mcp-harness binary with keys made by
// its own `keys` command in a real key file, the real Docker engine and
// sandbox image, the real MCP servers from npm, SQLite, and the fake LLM over
// real HTTP. A matrix over every route (no key, a malformed key, a revoked
// key, another user's key, the user's own key, an admin key); cross-tenant
// attempts through each kind of object; key file reload; the start-up
// refusal off loopback; and a search for the keys in everything the server
// wrote or sent.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "harness/http/api.hpp"
#include "llm/fake_llm_server.hpp"
#include "llm/fake_llm_steps.hpp"
#include "support/harness_server.hpp"
#include "support/keys_command.hpp"

namespace harness::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
namespace fs = std::filesystem;

// The key id of the key labelled `label`, from `keys list`.
std::string key_id_of(const fs::path& file, const std::string& label) {
  auto [code, out] = keys_command(file, "list");
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(label) != std::string::npos && line.starts_with("key_")) return line.substr(0, 16);
  }
  throw std::runtime_error("no key labelled " + label + " in: " + out);
}

std::string bearer(const std::string& key) {
  return "Authorization: Bearer " + key + "\r\n";
}

// A server without sandboxes or MCP servers, its files under `dir`, and the key file `dir`/api-keys.json.
std::map<std::string, std::string> small_server_env(const fs::path& dir,
                                                    std::map<std::string, std::string> extra = {}) {
  std::map<std::string, std::string> env{{"ENV_FILE", "/dev/null"},
                                         {"PORT", "0"},
                                         {"API_KEYS_FILE", (dir / "api-keys.json").string()},
                                         {"STORE_PATH", (dir / "harness.db").string()},
                                         {"SKILLS_DIR", (dir / "skills").string()},
                                         {"WORKSPACE_DIR", (dir / "workspace").string()},
                                         {"MCP_CONFIG", source_path("tests/http/no_mcp_servers.json")},
                                         {"SANDBOX_POOL_SIZE", "0"}};
  for (auto& [name, value] : extra) env[name] = value;
  return env;
}

// One server for the suite: starting one costs seconds, and the tests only read
// what the others left, except where each says otherwise.
class AuthEndToEnd : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    owner = "harness-auth-" + std::to_string(getpid());
    root = fs::temp_directory_path() / owner;
    files = root / "files";
    fs::create_directories(files);
    keys_file = root / "keys" / "api-keys.json";
    alice_key = add_key(keys_file, "--user alice --name alice-laptop");
    bob_key = add_key(keys_file, "--user bob --name bob-laptop");
    admin_key = add_key(keys_file, "--admin --name ops");
    revoked_key = add_key(keys_file, "--user alice --name old");
    alice_id = key_id_of(keys_file, "alice-laptop");
    ASSERT_EQ(keys_command(keys_file, "revoke " + key_id_of(keys_file, "old")).first, 0);
    for (const std::string name : {"notes", "notes2"}) {
      auto dir = root / "skills" / "users" / "alice" / name;
      fs::create_directories(dir);
      std::ofstream(dir / "SKILL.md") << "---\nname: " << name << "\ndescription: alice's notes\n---\nUse it.\n";
      std::ofstream(dir / "index.js") << "export const x = 1;\n";
    }
    llm = new fake_llm_server();
    server = new harness_server(end_to_end_env(owner, root.string(), files.string(), llm->openai_base_url(),
                                               {{"LOG_LEVEL", "debug"},
                                                {"API_KEYS_FILE", keys_file.string()},
                                                {"RATE_LIMIT_PER_MINUTE", "100000"},
                                                {"RATE_LIMIT_BURST", "100000"},
                                                {"SANDBOX_TIMEOUT_MS", "5000"}}));
    ASSERT_TRUE(server->wait_healthy(1, {"store"}, 60s, bearer(admin_key))) << server->call("GET", "/health")->body;

    // alice's task: it reads a file with an email (tokenized into the sandbox),
    // writes it on through a tool (restored for the tool) and into its workspace.
    std::ofstream(files / "contact.txt") << "Write to jane.doe@example.com about the invoice.";
    llm->push(json::array({code_step("const {content: text} = await callMCPTool('fs__read_text_file', {path: '" +
                                     (files / "contact.txt").string() +
                                     "'});\n"
                                     "const email = text.match(/\\[EMAIL_\\d+\\]/)[0];\n"
                                     "await callMCPTool('fs__write_file', {path: '" +
                                     (files / "alice-out.txt").string() +
                                     "', content: 'to: ' + email});\n"
                                     "await fs.writeFile('/workspace/out.txt', email);\n"
                                     "return {email};"),
                           answer_step("I wrote to [EMAIL_1].")}));
    auto r = server->call("POST", "/task", json{{"task", "Note who to write to."}}.dump(), 60s, bearer(alice_key));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    alice_task = r->json();
    ASSERT_EQ(alice_task["status"], "succeeded") << r->body;
  }

  static void TearDownTestSuite() {
    if (server) {
      EXPECT_EQ(server->stop(), 0) << server->output();
      delete server;
      server = nullptr;
    }
    delete llm;
    llm = nullptr;
    EXPECT_EQ(labelled_containers(owner), 0);
    fs::remove_all(root);
  }

  static std::optional<raw_response> call(const std::string& method, const std::string& target,
                                          const std::string& headers, const std::string& body = {}) {
    return server->call(method, target, body, 60s, headers);
  }

  static std::string task_id() { return alice_task["taskId"].get<std::string>(); }

  static inline std::string owner, alice_key, bob_key, admin_key, revoked_key, alice_id;
  static inline fs::path root, files, keys_file;
  static inline fake_llm_server* llm = nullptr;
  static inline harness_server* server = nullptr;
  static inline json alice_task;
};

// One request of the matrix: the route it exercises, and what the user's own
// key (and the admin key) get.
struct probe {
  std::string method, pattern, target, body;
  int own_status;    // with alice's key; 0: anything but 401 and 403 (the health probes)
  int other_status;  // with bob's key, acting for alice; 0 likewise
  std::string other_code;
};

TEST_F(AuthEndToEnd, EveryRouteAnswersEachKindOfCallerRightly) {
  // A session of alice's for DELETE /sessions/{id}, made as part of the matrix.
  auto opened = call("POST", "/execute", bearer(alice_key),
                     json{{"sessionId", "nb-1"}, {"code", "globalThis.kept = 7; return 1"}}.dump());
  ASSERT_TRUE(opened && opened->status == 200) << (opened ? opened->body : "");
  const std::string id = task_id();
  const std::vector<probe> probes = {
      {"GET", "/health", "/health", "", 0, 0, ""},
      {"GET", "/health/live", "/health/live", "", 200, 200, ""},
      {"GET", "/health/ready", "/health/ready", "", 0, 0, ""},
      {"GET", "/metrics", "/metrics", "", 403, 403, "admin_required"},
      {"POST", "/task", "/task", json{{"userId", "alice"}, {"task", "x"}}.dump(), 200, 403, "user_not_allowed"},
      {"GET", "/tasks", "/tasks?userId=alice", "", 200, 403, "user_not_allowed"},
      {"GET", "/tasks/{id}", "/tasks/" + id, "", 200, 404, "task_not_found"},
      {"GET", "/tasks/{id}/events", "/tasks/" + id + "/events", "", 200, 404, "task_not_found"},
      {"DELETE", "/tasks/{id}", "/tasks/" + id, "", 409, 404, "task_not_found"},
      // The task has ended: no approval of it can be decided any more.
      {"POST", "/tasks/{id}/approvals/{approvalId}", "/tasks/" + id + "/approvals/appr_1",
       json{{"decision", "approve"}}.dump(), 409, 404, "task_not_found"},
      {"GET", "/tools", "/tools", "", 200, 200, ""},
      {"GET", "/tools/{name}", "/tools/fs__read_text_file", "", 200, 200, ""},
      {"POST", "/execute", "/execute", json{{"userId", "alice"}, {"code", "return 1"}}.dump(), 200, 403,
       "user_not_allowed"},
      {"DELETE", "/sessions/{id}", "/sessions/nb-1?userId=alice", "", 200, 403, "user_not_allowed"},
      {"GET", "/skills", "/skills?userId=alice", "", 200, 403, "user_not_allowed"},
      {"GET", "/skills/{userId}/{name}", "/skills/alice/notes", "", 200, 404, "skill_not_found"},
      {"GET", "/skills/{userId}/{name}/files/{path...}", "/skills/alice/notes/files/SKILL.md", "", 200, 404,
       "skill_not_found"},
      {"DELETE", "/skills/{userId}/{name}", "/skills/alice/notes", "", 200, 404, "skill_not_found"},
      // alice's own secrets: set, listed by name, deleted (in this order).
      {"PUT", "/secrets/{name}", "/secrets/GH_TOKEN?userId=alice", json{{"value", "ghp_0123456789"}}.dump(), 200, 403,
       "user_not_allowed"},
      {"GET", "/secrets", "/secrets?userId=alice", "", 200, 403, "user_not_allowed"},
      {"DELETE", "/secrets/{name}", "/secrets/GH_TOKEN?userId=alice", "", 200, 403, "user_not_allowed"},
      // alice's connections: none configured here, so a named one is not found, for her alone.
      {"GET", "/connections", "/connections?userId=alice", "", 200, 403, "user_not_allowed"},
      {"POST", "/connections/{server}", "/connections/notes?userId=alice", "", 404, 403, "user_not_allowed"},
      {"DELETE", "/connections/{server}", "/connections/notes?userId=alice", "", 404, 403, "user_not_allowed"},
      {"GET", "/tasks/{id}/files", "/tasks/" + id + "/files", "", 200, 404, "task_not_found"},
      {"GET", "/tasks/{id}/files/{path...}", "/tasks/" + id + "/files/out.txt", "", 200, 404, "task_not_found"},
      // /mcp names its user at initialize; the other requests need a session (MCP's own errors, no user).
      {"POST", "/mcp", "/mcp?userId=alice",
       json{{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"}, {"params", {{"protocolVersion", "2025-11-25"}}}}
           .dump(),
       200, 403, "user_not_allowed"},
      {"GET", "/mcp", "/mcp", "", 405, 405, ""},
      {"DELETE", "/mcp", "/mcp", "", 400, 400, ""},
      // Who the key is: every valid key may ask about itself.
      {"GET", "/me", "/me", "", 200, 200, ""},
      // The dashboard's files are open: the page loads before anyone signs in.
      {"GET", "/", "/", "", 308, 308, ""},
      {"GET", "/ui", "/ui", "", 308, 308, ""},
      {"GET", "/ui/", "/ui/", "", 200, 200, ""},
      {"GET", "/ui/{path...}", "/ui/js/app.js", "", 200, 200, ""},
      // A browser back from an authorization server has no key: the state is the credential.
      {"GET", "/oauth/callback", "/oauth/callback?code=x&state=forged", "", 400, 400, ""},
  };
  // The matrix covers the route table, so a new route cannot skip it.
  std::set<std::string> covered, table;
  for (const auto& p : probes) covered.insert(p.method + " " + p.pattern);
  const auto routes = http::make_api_router();
  for (const auto& r : routes.routes()) table.insert(r.method + " " + r.pattern);
  EXPECT_EQ(covered, table);

  // Refusals first: none of them may change anything.
  for (const auto& p : probes) {
    SCOPED_TRACE(p.method + " " + p.target);
    const bool open = p.pattern.starts_with("/health") || p.pattern == "/" || p.pattern.starts_with("/ui") ||
                      p.pattern == "/oauth/callback";
    for (const auto& [headers, code] :
         std::vector<std::pair<std::string, std::string>>{{"", "key_required"},
                                                          {"Authorization: Bearer mh_not-a-key\r\n", "invalid_key"},
                                                          {"Authorization: Basic YWxpY2U6c2VjcmV0\r\n", "invalid_key"},
                                                          {bearer(revoked_key), "invalid_key"}}) {
      auto r = call(p.method, p.target, headers, p.body);
      ASSERT_TRUE(r);
      if (open) {
        EXPECT_NE(r->status, 401) << r->body;
        continue;
      }
      ASSERT_EQ(r->status, 401) << headers << r->body;
      EXPECT_EQ(r->json()["error"]["code"], code);
      EXPECT_TRUE(r->header("www-authenticate").starts_with("Bearer realm=\"mcp-harness\""));
    }
    auto other = call(p.method, p.target, bearer(bob_key), p.body);
    ASSERT_TRUE(other);
    if (p.other_status == 0) {
      EXPECT_NE(other->status, 401);
      EXPECT_NE(other->status, 403);
    } else {
      EXPECT_EQ(other->status, p.other_status) << other->body;
    }
    if (!p.other_code.empty()) {
      EXPECT_EQ(other->json()["error"]["code"], p.other_code) << other->body;
    }
  }
  // alice's skills and session are still there after every refusal.
  ASSERT_EQ(call("GET", "/skills/alice/notes", bearer(alice_key))->status, 200);
  auto kept = call("POST", "/execute", bearer(alice_key), json{{"sessionId", "nb-1"}, {"code", "return kept"}}.dump());
  EXPECT_EQ(kept->json()["result"], 7) << kept->body;

  for (const auto& p : probes) {
    SCOPED_TRACE(p.method + " " + p.target);
    auto own = call(p.method, p.target, bearer(alice_key), p.body);
    ASSERT_TRUE(own);
    if (p.own_status == 0) {
      EXPECT_NE(own->status, 401);
      EXPECT_NE(own->status, 403);
    } else {
      EXPECT_EQ(own->status, p.own_status) << own->body;
    }
  }
  // The admin key: /metrics, and any user (on the objects alice's run above left).
  auto metrics = call("GET", "/metrics", bearer(admin_key));
  ASSERT_EQ(metrics->status, 200);
  EXPECT_NE(metrics->body.find("harness_key_requests_total{key=\"" + alice_id + "\",outcome=\"admitted\"}"),
            std::string::npos);
  EXPECT_NE(metrics->body.find("harness_auth_refusals_total{reason=\"invalid_key\"}"), std::string::npos);
  EXPECT_EQ(call("GET", "/tasks/" + id, bearer(admin_key))->status, 200);
  EXPECT_EQ(call("GET", "/tasks?userId=alice", bearer(admin_key))->status, 200);
  // Without a user an admin lists everyone's tasks (the dashboard's task monitor); a user key only its own.
  auto everyone = call("GET", "/tasks", bearer(admin_key))->json();
  ASSERT_TRUE(everyone["tasks"].is_array()) << everyone.dump();
  EXPECT_TRUE(std::any_of(everyone["tasks"].begin(), everyone["tasks"].end(),
                          [&](const json& t) { return t["taskId"] == id; }));
  for (const auto& t : call("GET", "/tasks", bearer(bob_key))->json()["tasks"]) EXPECT_EQ(t["userId"], "bob");
  EXPECT_EQ(call("GET", "/skills", bearer(admin_key))->json()["error"]["code"], "user_required");
  EXPECT_EQ(call("DELETE", "/skills/alice/notes2", bearer(admin_key))->status, 200);
  EXPECT_EQ(call("POST", "/execute", bearer(admin_key), json{{"userId", "carol"}, {"code", "return 2"}}.dump())
                ->json()["result"],
            2);
}

TEST_F(AuthEndToEnd, AnotherUsersObjectsAreNotFoundAndTheirPiiTokensMeanNothing) {
  const std::string id = task_id();
  auto missing = call("GET", "/tasks/task_nope", bearer(bob_key));
  ASSERT_EQ(missing->status, 404);
  // The same answer as for a task that does not exist (only the id differs).
  auto other = call("GET", "/tasks/" + id, bearer(bob_key));
  ASSERT_EQ(other->status, 404);
  EXPECT_EQ(other->json()["error"]["message"], "there is no task '" + id + "'");
  EXPECT_EQ(other->body.find("jane.doe"), std::string::npos);
  EXPECT_EQ(other->body.find("alice"), std::string::npos);
  for (const char* path :
       {"/files", "/files/out.txt", "/files/..%2f..%2fetc%2fpasswd", "/files/%2e%2e/x", "/events", "/events?after=0"}) {
    auto r = call("GET", "/tasks/" + id + path, bearer(bob_key));
    ASSERT_TRUE(r);
    // A path the server cannot take apart is refused before any lookup (400); else the same 404.
    EXPECT_TRUE(r->status == 404 || r->status == 400) << path << " " << r->status << " " << r->body;
    EXPECT_EQ(r->body.find("jane.doe"), std::string::npos) << path;
  }
  EXPECT_EQ(call("GET", "/tasks/" + id + "?userId=bob", bearer(bob_key))->status, 404);
  EXPECT_EQ(call("DELETE", "/tasks/" + id, bearer(bob_key))->status, 404);
  auto listed = call("GET", "/tasks", bearer(bob_key));
  ASSERT_EQ(listed->status, 200);
  EXPECT_EQ(listed->json()["tasks"].size(), 0u) << listed->body;

  // A follow-up in alice's conversation: to bob it does not exist.
  auto followup = call("POST", "/task", bearer(bob_key),
                       json{{"task", "Who was it?"}, {"conversationId", alice_task["conversationId"]}}.dump());
  ASSERT_EQ(followup->status, 404) << followup->body;
  EXPECT_EQ(followup->json()["error"]["code"], "conversation_not_found");

  // alice's own file and her task's answer hold the real value.
  EXPECT_EQ(read_file(files / "alice-out.txt"), "to: jane.doe@example.com");
  auto own_file = call("GET", "/tasks/" + id + "/files/out.txt", bearer(alice_key));
  ASSERT_EQ(own_file->status, 200);

  // bob's code sends alice's token to a tool: it arrives as the literal text.
  auto sent = call("POST", "/execute", bearer(bob_key),
                   json{{"code", "await callMCPTool('fs__write_file', {path: '" + (files / "bob-out.txt").string() +
                                     "', content: 'to: [EMAIL_1]'});\nreturn 1"}}
                       .dump());
  ASSERT_EQ(sent->status, 200) << sent->body;
  EXPECT_FALSE(sent->json().contains("error")) << sent->body;
  EXPECT_EQ(read_file(files / "bob-out.txt"), "to: [EMAIL_1]");
  // And through a task of his own.
  llm->push(json::array({code_step("await callMCPTool('fs__write_file', {path: '" + (files / "bob-task.txt").string() +
                                   "', content: '[EMAIL_1]'});\nreturn 1"),
                         answer_step("Done: [EMAIL_1].")}));
  auto bobs_task = call("POST", "/task", bearer(bob_key), json{{"task", "Write [EMAIL_1] down."}}.dump());
  ASSERT_EQ(bobs_task->status, 200) << bobs_task->body;
  EXPECT_EQ(read_file(files / "bob-task.txt"), "[EMAIL_1]");
  EXPECT_EQ(bobs_task->json()["result"], "Done: [EMAIL_1].");
  EXPECT_EQ(bobs_task->json()["keyId"].get<std::string>().substr(0, 4), "key_");
  EXPECT_NE(bobs_task->json()["keyId"], alice_task["keyId"]);

  // An /execute session id names a session per user: bob's "nb-x" is not alice's.
  ASSERT_EQ(call("POST", "/execute", bearer(alice_key),
                 json{{"sessionId", "nb-x"}, {"code", "globalThis.secret = 'alice'; return 1"}}.dump())
                ->status,
            200);
  auto peek =
      call("POST", "/execute", bearer(bob_key), json{{"sessionId", "nb-x"}, {"code", "return typeof secret"}}.dump());
  EXPECT_EQ(peek->json()["result"], "undefined") << peek->body;
  EXPECT_EQ(call("DELETE", "/sessions/nb-x", bearer(bob_key))->status, 200);  // his own
  auto still =
      call("POST", "/execute", bearer(alice_key), json{{"sessionId", "nb-x"}, {"code", "return secret"}}.dump());
  EXPECT_EQ(still->json()["result"], "alice") << still->body;

  // Skills: listing names the user (403), a path to hers is not found (404), and nothing is deleted.
  EXPECT_EQ(call("GET", "/skills?userId=alice", bearer(bob_key))->status, 403);
  EXPECT_EQ(call("GET", "/skills/alice/notes", bearer(bob_key))->json()["error"]["code"], "skill_not_found");
  EXPECT_EQ(call("DELETE", "/skills/alice/notes", bearer(bob_key))->status, 404);
  auto bobs_skills = call("GET", "/skills", bearer(bob_key))->json();
  for (const auto& s : bobs_skills["skills"]) EXPECT_NE(s["owner"], "user") << bobs_skills.dump();
}

TEST_F(AuthEndToEnd, TheTaskRecordAndTheAccessLogCarryTheKeyIdAndNothingHoldsAKey) {
  EXPECT_EQ(alice_task["keyId"], alice_id);
  auto view = call("GET", "/tasks/" + task_id(), bearer(alice_key))->json();
  EXPECT_EQ(view["keyId"], alice_id);
  // Keys in the sandbox: none (the code sees its environment and files).
  auto env = call("POST", "/execute", bearer(alice_key), json{{"code", "return JSON.stringify(process.env)"}}.dump());
  ASSERT_EQ(env->status, 200);
  for (const auto& key : {alice_key, bob_key, admin_key, revoked_key}) {
    EXPECT_EQ(env->body.find(key), std::string::npos);
  }
  // /health answers everyone, but only an admin key sees the components' details.
  auto anyone = call("GET", "/health", "");
  ASSERT_TRUE(anyone);
  auto summary = anyone->json();
  EXPECT_EQ(summary["auth"], "keys");
  EXPECT_EQ(summary["components"]["pool"], (json{{"status", "up"}, {"required", false}})) << anyone->body;
  for (const char* detail : {"pid", "baseUrl", "endpoint", "model", "path"}) {
    EXPECT_EQ(anyone->body.find(detail), std::string::npos) << detail << " in " << anyone->body;
  }
  EXPECT_EQ(call("GET", "/health", bearer(bob_key))->body.find("endpoint"), std::string::npos);
  auto detailed = call("GET", "/health", bearer(admin_key));
  EXPECT_NE(detailed->body.find("\"endpoint\""), std::string::npos) << detailed->body;
  EXPECT_TRUE(detailed->json()["components"]["pool"].contains("ready"));

  auto log = server->output();
  EXPECT_NE(log.find("key=" + alice_id), std::string::npos) << log.substr(0, 4000);
  EXPECT_NE(log.find("key=-"), std::string::npos);  // refused and open requests
  std::string stored = read_file(root / "harness.db") + read_file(root / "harness.db-wal");
  std::string sent;
  for (const auto& r : llm->requests()) sent += r.body;
  std::string key_file = read_file(keys_file);
  for (const auto& key : {alice_key, bob_key, admin_key, revoked_key}) {
    SCOPED_TRACE(key.substr(0, 6));
    EXPECT_EQ(log.find(key), std::string::npos) << "the log has a key";
    EXPECT_EQ(stored.find(key), std::string::npos) << "the database has a key";
    EXPECT_EQ(sent.find(key), std::string::npos) << "the LLM got a key";
    EXPECT_EQ(key_file.find(key), std::string::npos) << "the key file has a key, not its hash";
    // Nor a tell-tale part of one.
    EXPECT_EQ(log.find(key.substr(3, 16)), std::string::npos);
  }
  EXPECT_EQ(fs::status(keys_file).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(AuthEndToEnd, KeyFileChangesApplyWithoutARestart) {
  auto carol = add_key(keys_file, "--user carol --name carol");
  // The server looks at the file at most once a second, on use.
  std::optional<raw_response> r;
  for (int i = 0; i < 50; ++i) {
    r = call("GET", "/tasks", bearer(carol));
    if (r && r->status == 200) break;
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  ASSERT_EQ(keys_command(keys_file, "revoke " + key_id_of(keys_file, "carol")).first, 0);
  for (int i = 0; i < 50; ++i) {
    r = call("GET", "/tasks", bearer(carol));
    if (r && r->status == 401) break;
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_EQ(r->status, 401) << r->body;
  EXPECT_EQ(r->json()["error"]["code"], "invalid_key");
  // A broken file keeps the keys in force, and says so in the log once.
  auto good = read_file(keys_file);
  { std::ofstream(keys_file, std::ios::trunc) << "{ broken"; }
  std::this_thread::sleep_for(1100ms);
  EXPECT_EQ(call("GET", "/tasks", bearer(alice_key))->status, 200);
  EXPECT_EQ(call("GET", "/tasks", bearer(alice_key))->status, 200);
  { std::ofstream(keys_file, std::ios::trunc) << good; }
  std::this_thread::sleep_for(1100ms);
  EXPECT_EQ(call("GET", "/tasks", bearer(alice_key))->status, 200);
  EXPECT_NE(server->output().find("keeping the"), std::string::npos);
}

TEST(AuthStartUp, NoKeyOffLoopbackRefusesToStartAndAuthNoneOverrides) {
  auto dir = fs::temp_directory_path() / ("harness-auth-start-" + std::to_string(getpid()));
  fs::create_directories(dir);
  auto env = small_server_env(dir, {{"HOST", "0.0.0.0"}});
  child_process refused({binary_path("src/mcp-harness")}, env);
  auto code = refused.wait_exit(30s);
  EXPECT_EQ(code, 2) << refused.output();
  const auto& out = refused.output();
  EXPECT_NE(out.find("HOST 0.0.0.0 is not a loopback address"), std::string::npos) << out;
  EXPECT_NE(out.find("mcp-harness keys add --user"), std::string::npos) << out;
  EXPECT_EQ(out.find("listening on"), std::string::npos);
  // AUTH=none overrides, unsafe and saying so (the test talks to it over loopback only).
  {
    harness_server unsafe(small_server_env(dir, {{"HOST", "0.0.0.0"}, {"AUTH", "none"}}));
    EXPECT_EQ(unsafe.call("GET", "/skills?userId=alice")->status, 200);
    for (int i = 0; i < 50 && unsafe.output().find("AUTH=none") == std::string::npos; ++i) {
      std::this_thread::sleep_for(100ms);
    }
    EXPECT_NE(unsafe.output().find("HOST is not loopback"), std::string::npos) << unsafe.output();
    EXPECT_EQ(unsafe.stop(), 0);
  }
  fs::remove_all(dir);
}

TEST(AuthStartUp, OnLoopbackWithoutKeysTheServerRunsOpenAndSaysSo) {
  auto dir = fs::temp_directory_path() / ("harness-auth-open-" + std::to_string(getpid()));
  fs::create_directories(dir);
  harness_server server(small_server_env(dir));
  // The mode is logged right after "listening on".
  for (int i = 0; i < 50 && server.output().find("runs open") == std::string::npos; ++i) {
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_NE(server.output().find("runs open"), std::string::npos) << server.output();
  auto health = server.call("GET", "/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->json()["auth"], "open");
  EXPECT_EQ(server.call("GET", "/skills?userId=alice")->status, 200);
  // A first key turns keys on, without a restart.
  auto key = add_key(dir / "api-keys.json", "--user alice");
  std::optional<raw_response> r;
  for (int i = 0; i < 50; ++i) {
    r = server.call("GET", "/skills?userId=alice");
    if (r && r->status == 401) break;
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_EQ(r->status, 401);
  EXPECT_EQ(server.call("GET", "/skills", {}, 10s, bearer(key))->status, 200);
  EXPECT_EQ(server.call("GET", "/health")->json()["auth"], "keys");
  // Revoking every key does not open the server again: it fails closed.
  auto [listed_code, listed] = keys_command(dir / "api-keys.json", "list");
  ASSERT_EQ(listed_code, 0);
  auto id = listed.substr(listed.find("\nkey_") + 1, 16);
  ASSERT_EQ(keys_command(dir / "api-keys.json", "revoke " + id).first, 0) << id;
  std::this_thread::sleep_for(1100ms);
  EXPECT_EQ(server.call("GET", "/skills?userId=alice")->status, 401);
  EXPECT_EQ(server.call("GET", "/health")->json()["auth"], "keys");
  EXPECT_EQ(server.stop(), 0);
  fs::remove_all(dir);
}

TEST(AuthStartUp, EachKeyHasARateLimitWithRetryAfter) {
  auto dir = fs::temp_directory_path() / ("harness-auth-rate-" + std::to_string(getpid()));
  fs::create_directories(dir);
  auto alice = add_key(dir / "api-keys.json", "--user alice");
  auto bob = add_key(dir / "api-keys.json", "--user bob");
  harness_server server(small_server_env(dir, {{"RATE_LIMIT_PER_MINUTE", "1"}, {"RATE_LIMIT_BURST", "3"}}));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(server.call("GET", "/skills", {}, 10s, bearer(alice))->status, 200) << i;
  auto limited = server.call("GET", "/skills", {}, 10s, bearer(alice));
  ASSERT_TRUE(limited);
  EXPECT_EQ(limited->status, 429) << limited->body;
  EXPECT_EQ(limited->json()["error"]["code"], "rate_limited");
  auto retry = std::stoi(limited->header("retry-after"));
  EXPECT_GE(retry, 1);
  EXPECT_LE(retry, 60);
  // bob's bucket is his own, and the probes are never limited.
  EXPECT_EQ(server.call("GET", "/skills", {}, 10s, bearer(bob))->status, 200);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(server.call("GET", "/health/live")->status, 200);
  EXPECT_EQ(server.stop(), 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace harness::testing
