// Code mode as an MCP server, end to end, through the official MCP SDK client
// (tests/mcp_server/sdk_client_test.cjs on Node, the SDK from
// tests/conformance/node_modules; and sdk2_client_test.cjs, the 2.x client
// from tests/mcp/versions pinned to 2026-07-28): the real mcp-harness binary with a real
// key file made by its own `keys` command, the real Docker engine and sandbox
// image, and the npm filesystem and memory servers. Once over Streamable HTTP
// at /mcp of the running server, once over stdio with `mcp-harness mcp --user
// alice` started by the SDK. After each, none of the test's containers and
// none of its processes are left.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "llm/fake_llm_server.hpp"
#include "support/harness_server.hpp"
#include "support/keys_command.hpp"

extern char** environ;

namespace harness::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* skill_name = "alice-sdk-notes";

// Processes (other than this one) whose command line or environment holds
// `needle`: the server, `mcp-harness mcp` and the MCP servers they start all
// carry the test's folder in theirs. A zombie has neither, so it does not count.
std::vector<std::string> processes_holding(const std::string& needle) {
  std::vector<std::string> found;
  const std::string self = std::to_string(::getpid());
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string pid = entry.path().filename().string();
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos || pid == self) continue;
    std::string cmdline = read_file(entry.path() / "cmdline");
    std::string environment = read_file(entry.path() / "environ");
    if (cmdline.find(needle) == std::string::npos && environment.find(needle) == std::string::npos) continue;
    for (auto& c : cmdline) {
      if (c == '\0') c = ' ';
    }
    found.push_back(pid + ": " + cmdline.substr(0, 300));
  }
  return found;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

// Polls `done` every 200 ms until it holds or `timeout` passes.
template <class Predicate>
bool eventually(Predicate done, std::chrono::milliseconds timeout) {
  auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (done()) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(200ms);
  }
}

class McpFaceSdk : public ::testing::Test {
 protected:
  void SetUp() override {
    owner = "harness-mcpsdk-" + std::to_string(::getpid());
    root = fs::temp_directory_path() / owner;
    fs::remove_all(root);
    files = root / "files";
    fs::create_directories(files);
    // A skill of alice's: the script finds it in /skills, which shows the
    // session acts for alice (HTTP: the key's only user; stdio: --user alice).
    auto skill = root / "skills" / "users" / "alice" / skill_name;
    fs::create_directories(skill);
    std::ofstream(skill / "SKILL.md") << "---\nname: " << skill_name
                                      << "\ndescription: alice's notes for the SDK test\n---\nUse it.\n";
    keys_file = root / "keys" / "api-keys.json";
    alice_key = add_key(keys_file, "--user alice --name alice-sdk");
    admin_key = add_key(keys_file, "--admin --name ops");

    node = find_on_path("node");
    script = source_path("tests/mcp_server/sdk_client_test.cjs");
    ASSERT_FALSE(node.empty()) << "node is not on PATH (scripts/setup.sh installs it)";
    ASSERT_TRUE(fs::exists(source_path("tests/conformance/node_modules/@modelcontextprotocol/sdk/package.json")))
        << "the MCP SDK is not installed in tests/conformance (run scripts/setup.sh)";

    // A tool the script's approval checks use, and no other check calls.
    std::ofstream(root / "policy.json") << R"({"rules": [{"tool": "fs__list_directory", "approval": "ask"}]})";
    // The shipped servers, the everything server, whose trigger-elicitation-request
    // sends an elicitation the face passes on to the SDK client, and a server of
    // MCP 2026-07-28 only (the SDK 2.4.0 server), whose `ask` answers input_required.
    const std::string modules = source_path("servers/node_modules/@modelcontextprotocol/");
    std::ofstream(root / "mcp.json")
        << json{{"mcpServers",
                 {{"fs",
                   {{"command", "node"}, {"args", {modules + "server-filesystem/dist/index.js", files.string()}}}},
                  {"memory",
                   {{"command", "node"},
                    {"args", {modules + "server-memory/dist/index.js"}},
                    {"env", {{"MEMORY_FILE_PATH", (root / "memory.jsonl").string()}}}}},
                  {"everything",
                   {{"command", "node"}, {"args", {modules + "server-everything/dist/index.js", "stdio"}}}},
                  {"modern", {{"command", "node"}, {"args", {source_path("tests/mcp/modern_server.mjs"), "stdio"}}}}}}}
               .dump();
    // The LLM answers run_task's agent run only (code mode has no agent loop):
    // a block that lists the shared folder (the tool policy asks first, so the
    // SDK client is asked), then the final answer.
    const std::string list_code =
        "const r = await callMCPTool('fs__list_directory', {path: " + json(files.string()).dump() +
        "}); return JSON.stringify(r).length";
    llm.push(
        json::array({{{"reply", {{"toolCalls", {{{"name", "execute_code"}, {"arguments", {{"code", list_code}}}}}}}}},
                     {{"reply", {{"text", "The folder is listed."}}}}}));
    env = end_to_end_env(owner, root.string(), files.string(), llm.openai_base_url(),
                         {{"API_KEYS_FILE", keys_file.string()},
                          {"TOOL_POLICY_FILE", (root / "policy.json").string()},
                          {"MCP_CONFIG", (root / "mcp.json").string()},
                          {"SANDBOX_TIMEOUT_MS", "20000"},
                          {"SANDBOX_IDLE_TIMEOUT_MS", "60000"},
                          {"SANDBOX_CALL_SOCKET_DIR", (root / "sockets").string()},
                          // The SDK client makes dozens of requests in a few seconds.
                          {"RATE_LIMIT_PER_MINUTE", "0"}});
  }

  void TearDown() override {
    EXPECT_EQ(labelled_containers(owner), 0);
    std::error_code ec;
    fs::remove_all(root, ec);
  }

  // Runs the script (the 1.x one unless told) with `script_env`; its exit code (-1 on timeout) and output.
  std::pair<int, std::string> run_script(std::map<std::string, std::string> script_env, const std::string& which = {}) {
    script_env["NODE_EXTRA_CA_CERTS"] = "";  // empty: off (it only slows node's start-up here)
    script_env["MCP_TEST_EXPECT_SKILL"] = skill_name;
    child_process child({node, which.empty() ? script : which}, script_env);
    auto code = child.wait_exit(300s);  // the script gives up by itself after 240 s
    if (!code) child.send_signal(SIGKILL);
    return {code.value_or(-1), child.output()};
  }

  // No container of ours and no process holding our folder, within `timeout`.
  void expect_nothing_left(const std::string& when, std::chrono::milliseconds timeout = 15s) {
    EXPECT_TRUE(eventually([&] { return labelled_containers(owner) == 0; }, timeout))
        << labelled_containers(owner) << " container(s) labelled " << owner << " are left " << when;
    // With the slash: no other test's folder (another pid) starts with it.
    const std::string needle = root.string() + "/";
    EXPECT_TRUE(eventually([&] { return processes_holding(needle).empty(); }, timeout))
        << "processes are left " << when << ":\n"
        << joined(processes_holding(needle));
  }

  // The stdio scripts' settings: `mcp-harness mcp --user alice` with exactly
  // the server's environment, the test's own plus the settings above (the SDK
  // passes on only HOME, LOGNAME, PATH, SHELL, TERM and USER).
  std::map<std::string, std::string> stdio_script_env() {
    json child_env = json::object();
    for (char** e = environ; *e; ++e) {
      std::string entry(*e);
      auto eq = entry.find('=');
      if (eq != std::string::npos) child_env[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    for (const auto& [name, value] : env) child_env[name] = value;
    child_env.erase("PORT");
    child_env["API_KEYS_FILE"] = keys_file.string();  // not read for stdio; the same file as the HTTP test's
    return {{"MCP_TEST_TRANSPORT", "stdio"},
            {"MCP_TEST_COMMAND", binary_path("src/mcp-harness")},
            {"MCP_TEST_ARGS", json::array({"mcp", "--user", "alice"}).dump()},
            {"MCP_TEST_ENV_JSON", child_env.dump(-1, ' ', false, json::error_handler_t::replace)},
            {"MCP_TEST_CWD", source_path("")}};
  }

  // Runs a script (the 1.x one unless told) against a running server with
  // alice's key and `extra`. The script ends every session it opened, so
  // while the server runs only the warm pool's one sandbox is left, and
  // nothing once it stopped.
  void run_over_http(std::map<std::string, std::string> extra, const std::string& which = {}) {
    harness_server server(env);
    ASSERT_TRUE(server.wait_healthy(1, {}, 60s, "Authorization: Bearer " + admin_key + "\r\n"))
        << server.call("GET", "/health")->body;
    extra["MCP_TEST_TRANSPORT"] = "http";
    extra["MCP_TEST_URL"] = "http://127.0.0.1:" + std::to_string(server.port()) + "/mcp";
    extra["MCP_TEST_KEY"] = alice_key;
    auto [code, output] = run_script(std::move(extra), which);
    EXPECT_EQ(code, 0) << output;
    // Pools grow with their claims, and a Python block starts the Python pool.
    auto pooled = [&] {
      auto health = server.call("GET", "/health", "", 10s, "Authorization: Bearer " + admin_key + "\r\n");
      if (!health) return -1;
      int held = 0;
      for (const char* pool : {"pool", "pool.python"}) {
        const auto& c = health->json()["components"].value(pool, json::object());
        held += c.value("ready", 0) + c.value("starting", 0);
      }
      return held;
    };
    EXPECT_TRUE(eventually([&] { return labelled_containers(owner) <= pooled(); }, 20s))
        << labelled_containers(owner) << " containers labelled " << owner << " while the server runs, the pools hold "
        << pooled() << ": a session's sandbox outlived its MCP session";
    EXPECT_EQ(server.stop(), 0) << server.output();
    expect_nothing_left("after the server stopped");
  }

  std::string sdk2_script() {
    EXPECT_TRUE(fs::exists(source_path("tests/mcp/versions/node_modules/@modelcontextprotocol/client/package.json")))
        << "the 2.x SDK is not installed in tests/mcp/versions (run scripts/setup.sh)";
    return source_path("tests/mcp_server/sdk2_client_test.cjs");
  }

  harness::testing::fake_llm_server llm;
  std::string owner;
  fs::path root;
  fs::path files;
  fs::path keys_file;
  std::string alice_key;
  std::string admin_key;
  std::string node;
  std::string script;
  std::map<std::string, std::string> env;
};

TEST_F(McpFaceSdk, StreamableHttpWithAKey) {
  run_over_http({{"MCP_TEST_OTHER_USER", "bob"}});
}

TEST_F(McpFaceSdk, StdioStartedByTheSdk) {
  auto [code, output] = run_script(stdio_script_env());
  EXPECT_EQ(code, 0) << output;

  // The script waited for `mcp-harness mcp` to exit after closing its stdin;
  // with it went its sandboxes and its MCP servers.
  auto pid_line = output.find("# stdio child pid ");
  ASSERT_NE(pid_line, std::string::npos) << output;
  const int pid = std::atoi(output.c_str() + pid_line + std::string("# stdio child pid ").size());
  ASSERT_GT(pid, 0) << output;
  EXPECT_TRUE(eventually(
      [&] {
        if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
        auto proc_stat = read_file(fs::path("/proc") / std::to_string(pid) / "stat");
        auto paren = proc_stat.rfind(')');
        return paren != std::string::npos && paren + 2 < proc_stat.size() &&
               proc_stat[paren + 2] == 'Z';  // reaped soon
      },
      15s))
      << "mcp-harness mcp (pid " << pid << ") is still running";
  expect_nothing_left("after the stdio server exited");
}

// The 2026-07-28 era through the SDK's 2.x client pinned to it: stateless
// requests, session handles (bob, through the admin key, cannot use alice's),
// raw header and version checks; and the same SDK in its default mode still
// on 2025-11-25.
TEST_F(McpFaceSdk, NewEraOverStreamableHttp) {
  run_over_http({{"MCP_TEST_ADMIN_KEY", admin_key}}, sdk2_script());
}

TEST_F(McpFaceSdk, NewEraOverStdio) {
  auto [code, output] = run_script(stdio_script_env(), sdk2_script());
  EXPECT_EQ(code, 0) << output;
  expect_nothing_left("after the stdio servers exited");
}

}  // namespace
}  // namespace harness::testing
