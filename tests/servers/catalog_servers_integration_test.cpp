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
      {"github",
       {{"command", "node"},
        {"args", {npm_server("@modelcontextprotocol/server-github/dist/index.js")}},
        {"env", {{"GITHUB_PERSONAL_ACCESS_TOKEN", "dummy-token-no-call-leaves-this-machine"}}}}},
      {"installer", {{"command", "node"}, {"args", {npm_server("@anaisbetts/mcp-installer/lib/index.mjs")}}}},
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
const out = { tools: Object.fromEntries(['seq', 'db', 'redis', 'browser', 'github', 'installer'].map((s) => [s, count(s)])) };
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
  for (const char* s : {"seq", "db", "redis", "browser", "github", "installer"}) {
    EXPECT_GT(r["tools"][s].get<int>(), 0) << s << ": " << r.dump();
  }
  EXPECT_NE(r["thought"].dump().find("thoughtNumber"), std::string::npos) << r["thought"].dump();
  EXPECT_EQ(r["db"], json::parse(R"([{"answer": 42}])")) << r["db"].dump();
  EXPECT_NE(r["redis"].dump().find("hello from the sandbox"), std::string::npos) << r["redis"].dump();
  EXPECT_NE(r["evaluate"].dump().find("alive"), std::string::npos) << r["evaluate"].dump();
  // Not called, and why: github's tools all reach api.github.com, and the
  // installer's install npm packages and edit a desktop client's config.
  std::printf(
      "catalog: github and installer listed, not called (github needs the network; the installer edits a "
      "client's config)\n");
  EXPECT_EQ(server.stop(), 0) << server.output();
  EXPECT_EQ(labelled_containers(owner), 0);
  fs::remove_all(root);
}

}  // namespace
}  // namespace harness::testing
