// The catalog's npm servers as a user runs them: each started by the real
// binary from servers/node_modules, its tools listed and one called from
// sandbox code, against what it needs running here (a PostgreSQL and a Redis
// the test starts on this machine, Debian's chromium). Servers that need what
// this machine cannot have are listed but not called, and the test says why.
// (filesystem, memory and everything: tests/mcp/npm_servers_test.cpp and the
// /execute tests; postgres end to end: tests/examples/sales_report_test.cpp.)
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/child_process.hpp"
#include "support/harness_server.hpp"
#include "support/postgres_server.hpp"

namespace harness::testing {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

unsigned short free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

std::string npm_server(const std::string& path) {
  return source_path("servers/node_modules/" + path);
}

TEST(CatalogServers, EachStartsListsItsToolsAndAnswersCodeThroughTheHarness) {
  const std::string owner = "harness-catalog-" + std::to_string(getpid());
  const fs::path root = fs::temp_directory_path() / owner;
  fs::create_directories(root);
  // A Redis of its own, on loopback only, no persistence.
  const unsigned short redis_port = free_port();
  child_process redis({find_on_path("redis-server"), "--port", std::to_string(redis_port), "--bind", "127.0.0.1",
                       "--save", "", "--appendonly", "no", "--dir", root.string()},
                      {});
  ASSERT_TRUE(redis.wait_for_output("Ready to accept connections", 20s)) << redis.output();
  const std::string database = postgres_server::shared().create_database();

  const json launch = {{"headless", true},
                       {"executablePath", "/usr/bin/chromium"},
                       {"args", {"--no-sandbox", "--disable-gpu", "--disable-background-networking"}}};
  json servers = {
      {"seq",
       {{"command", "node"}, {"args", {npm_server("@modelcontextprotocol/server-sequential-thinking/dist/index.js")}}}},
      {"db",
       {{"command", "node"}, {"args", {npm_server("@modelcontextprotocol/server-postgres/dist/index.js"), database}}}},
      {"redis",
       {{"command", "node"},
        {"args",
         {npm_server("@modelcontextprotocol/server-redis/dist/index.js"),
          "redis://127.0.0.1:" + std::to_string(redis_port)}}}},
      {"browser",
       {{"command", "node"},
        {"args", {npm_server("@modelcontextprotocol/server-puppeteer/dist/index.js")}},
        {"env", {{"PUPPETEER_LAUNCH_OPTIONS", launch.dump()}, {"ALLOW_DANGEROUS", "true"}}}}},
      // The servers whose tools reach the internet (github's all call api.github.com,
      // the installer's run npm) and mongodb run in a network namespace of their own
      // with nothing in it: listing their tools must not need it, and whatever they
      // might send at start (mongodb's telemetry is off, but not read line by line)
      // cannot leave the machine.
      {"github",
       {{"command", find_on_path("unshare")},
        {"args", {"--net", "node", npm_server("@modelcontextprotocol/server-github/dist/index.js")}},
        {"env", {{"GITHUB_PERSONAL_ACCESS_TOKEN", "dummy-token-no-call-leaves-this-machine"}}}}},
      {"installer",
       {{"command", find_on_path("unshare")},
        {"args", {"--net", "node", npm_server("@anaisbetts/mcp-installer/lib/index.mjs")}}}},
      {"mongodb",
       {{"command", find_on_path("unshare")},
        {"args", {"--net", "node", npm_server("mongodb-mcp-server/dist/esm/index.js")}},
        {"env", {{"MDB_MCP_TELEMETRY", "disabled"}}}}},
  };
  std::ofstream(root / "mcp.json") << json{{"mcpServers", servers}}.dump(2);

  harness_server server({{"PORT", "0"},
                         {"ENV_FILE", "/dev/null"},
                         {"MCP_CONFIG", (root / "mcp.json").string()},
                         {"SANDBOX_OWNER", owner},
                         {"SANDBOX_POOL_SIZE", "1"},
                         {"SANDBOX_TIMEOUT_MS", "60000"},
                         {"STORE_PATH", (root / "harness.db").string()},
                         {"SKILLS_DIR", (root / "skills").string()},
                         {"WORKSPACE_DIR", (root / "workspace").string()},
                         {"SANDBOX_CALL_SOCKET_DIR", (root / "sockets").string()}});
  std::vector<std::string> names;
  for (const auto& [name, entry] : servers.items()) names.push_back("mcp." + name);
  ASSERT_TRUE(server.wait_healthy(1, names, 120s)) << server.call("GET", "/health")->body;

  // Each server's protocol version, as it answered.
  auto health = server.call("GET", "/health")->json()["components"];
  for (const auto& name : names) {
    std::printf("catalog: %s speaks %s, %d tools\n", name.c_str(),
                health[name].value("protocolVersion", std::string("?")).c_str(), health[name].value("tools", 0));
  }
  EXPECT_EQ(health["mcp.db"]["protocolVersion"], "2024-11-05");

  const std::string page = "http://127.0.0.1:" + std::to_string(server.port()) + "/health/live";
  const std::string code = R"(
const names = (await list_mcp_tools()).map((t) => t.name);
const count = (server) => names.filter((n) => n.startsWith(server + '__')).length;
const out = { tools: Object.fromEntries(['seq', 'db', 'redis', 'browser', 'github', 'installer', 'mongodb'].map((s) => [s, count(s)])) };
out.thought = await callMCPTool('seq__sequentialthinking', { thought: 'add the rows', thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: false });
out.db = await callMCPTool('db__query', { sql: 'SELECT 40 + 2 AS answer' });
await callMCPTool('redis__set', { key: 'greeting', value: 'hello from the sandbox' });
out.redis = await callMCPTool('redis__get', { key: 'greeting' });
out.navigate = await callMCPTool('browser__puppeteer_navigate', { url: ')" +
                           page + R"(' });
out.evaluate = await callMCPTool('browser__puppeteer_evaluate', { script: 'document.body.innerText' });
return out;
)";
  auto answer = server.call("POST", "/execute", json{{"userId", "catalog"}, {"code", code}}.dump(), 120s);
  ASSERT_TRUE(answer);
  ASSERT_EQ(answer->status, 200) << answer->body;
  json out = answer->json();
  ASSERT_FALSE(out.contains("error")) << answer->body << server.output();
  const json& r = out["result"];
  for (const char* s : {"seq", "db", "redis", "browser", "github", "installer", "mongodb"}) {
    EXPECT_GT(r["tools"][s].get<int>(), 0) << s << ": " << r.dump();
  }
  EXPECT_NE(r["thought"].dump().find("thoughtNumber"), std::string::npos) << r["thought"].dump();
  EXPECT_EQ(r["db"], json::parse(R"([{"answer": 42}])")) << r["db"].dump();
  EXPECT_NE(r["redis"].dump().find("hello from the sandbox"), std::string::npos) << r["redis"].dump();
  EXPECT_NE(r["evaluate"].dump().find("alive"), std::string::npos) << r["evaluate"].dump();
  // Not called, and why: github's tools all reach api.github.com, the
  // installer's install npm packages and edit a desktop client's config, and
  // mongodb's need a MongoDB or Atlas, which this machine does not have.
  std::printf(
      "catalog: github, installer and mongodb listed, not called (github needs the network; the installer "
      "edits a client's config; mongodb needs a database)\n");
  EXPECT_EQ(server.stop(), 0) << server.output();
  EXPECT_EQ(labelled_containers(owner), 0);
  fs::remove_all(root);
}

// A bad server among good ones: one that dies in initialize, one whose
// tools/list is malformed, one too slow to start. Each is one line in
// /health and in the log, naming the server and why; the good ones serve
// code all the while.
TEST(CatalogServers, ABadServerIsOneLineAndTheOthersServeOn) {
  const std::string owner = "harness-badsrv-" + std::to_string(getpid());
  const fs::path root = fs::temp_directory_path() / owner;
  fs::create_directories(root);
  auto fault = [](const std::string& mode) {
    return json{{"command", "node"}, {"args", {source_path("tests/mcp/fault_server.js"), mode}}};
  };
  json servers = {
      {"good1", fault("normal")},
      {"good2",
       {{"command", "node"}, {"args", {npm_server("@modelcontextprotocol/server-sequential-thinking/dist/index.js")}}}},
      {"dies", fault("crash_in_initialize")},
      {"garbled", fault("bad_tools_list")},
      {"slow", fault("slow_start")}};
  std::ofstream(root / "mcp.json") << json{{"mcpServers", servers}}.dump(2);
  harness_server server({{"PORT", "0"},
                         {"ENV_FILE", "/dev/null"},
                         {"MCP_CONFIG", (root / "mcp.json").string()},
                         {"MCP_STARTUP_TIMEOUT_MS", "3000"},
                         {"SANDBOX_OWNER", owner},
                         {"SANDBOX_POOL_SIZE", "1"},
                         {"STORE_PATH", (root / "harness.db").string()},
                         {"SKILLS_DIR", (root / "skills").string()},
                         {"WORKSPACE_DIR", (root / "workspace").string()},
                         {"SANDBOX_CALL_SOCKET_DIR", (root / "sockets").string()}});
  ASSERT_TRUE(server.wait_healthy(1, {"mcp.good1", "mcp.good2"}, 60s)) << server.call("GET", "/health")->body;
  // Wait until the slow one has been given up on too.
  json components;
  for (int i = 0; i < 100; ++i) {
    components = server.call("GET", "/health")->json()["components"];
    if (components["mcp.slow"]["status"] == "down" && components["mcp.dies"]["status"] == "down" &&
        components["mcp.garbled"]["status"] == "down")
      break;
    std::this_thread::sleep_for(200ms);
  }
  const std::map<std::string, std::string> why = {{"dies", "exit"}, {"garbled", "tools"}, {"slow", "3000"}};
  for (const auto& [name, part] : why) {
    const json& entry = components["mcp." + name];
    EXPECT_EQ(entry["status"], "down") << name << ": " << entry.dump();
    const std::string reason = entry.value("reason", "");
    EXPECT_FALSE(reason.empty()) << name << ": " << entry.dump();
    EXPECT_EQ(reason.find('\n'), std::string::npos) << reason;
    EXPECT_NE(reason.find(part), std::string::npos) << name << ": " << reason;
    // The log names the server and says the same.
    bool logged = false;
    std::istringstream lines(server.output());
    for (std::string line; std::getline(lines, line);) {
      logged = logged || (line.find("mcp " + name) != std::string::npos && line.find(part) != std::string::npos);
    }
    EXPECT_TRUE(logged) << name << " not in the log:\n" << server.output();
  }
  // The good ones answer code.
  auto answer = server.call("POST", "/execute",
                            json{{"userId", "u"},
                                 {"code",
                                  "return [await callMCPTool('good1__echo', {text: 'still here'}), "
                                  "(await list_mcp_tools()).filter((t) => t.name.startsWith('good2__')).length]"}}
                                .dump(),
                            60s);
  ASSERT_TRUE(answer);
  ASSERT_EQ(answer->status, 200) << answer->body;
  EXPECT_EQ(answer->json()["result"][0], "still here") << answer->body;
  EXPECT_EQ(answer->json()["result"][1], 1) << answer->body;
  EXPECT_EQ(server.stop(), 0) << server.output();
  EXPECT_EQ(labelled_containers(owner), 0);
  fs::remove_all(root);
}

}  // namespace
}  // namespace harness::testing
