// The dashboard end to end: the real mcp-harness binary (its UI built in) with
// keys made by its own `keys` command, the real Docker engine and sandbox, the
// npm MCP servers, SQLite and the fake LLM over HTTP; dashboard_test.cjs drives
// Debian's chromium through playwright-core against it. A user-scoped remote
// server behind OAuth (tests/mcp/oauth_mcp_server.js over plain HTTP on
// loopback) gives the Connections page an account to connect. After the test
// no container of ours is left.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "llm/fake_llm_server.hpp"
#include "support/harness_server.hpp"
#include "support/keys_command.hpp"

namespace harness::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

TEST(Dashboard, InARealBrowser) {
  const std::string node = find_on_path("node");
  ASSERT_FALSE(node.empty()) << "node is not on PATH (scripts/setup.sh installs it)";
  ASSERT_TRUE(fs::exists("/usr/bin/chromium")) << "Debian's chromium is missing (scripts/setup.d/60-ui.sh)";
  ASSERT_TRUE(fs::exists(source_path("tests/ui/node_modules/playwright-core/package.json")))
      << "playwright-core is not installed in tests/ui (run scripts/setup.sh)";

  const std::string owner = "harness-ui-" + std::to_string(getpid());
  const fs::path root = fs::temp_directory_path() / owner;
  fs::remove_all(root);
  const fs::path files = root / "files";
  fs::create_directories(files);
  const fs::path keys_file = root / "keys" / "api-keys.json";
  const std::string alice_key = add_key(keys_file, "--user alice --name alice-laptop");
  const std::string admin_key = add_key(keys_file, "--admin --name ops");

  // The memory server's writes wait for a person: the task page's approval buttons decide them.
  std::ofstream(root / "policy.json") << R"({"rules": [{"tool": "memory__create_entities", "approval": "ask"}]})";

  // servers/mcp.json (its paths made absolute) plus "notes": each user connects their own account to it.
  child_process oauth({node, source_path("tests/mcp/oauth_mcp_server.js")}, {{"NODE_EXTRA_CA_CERTS", ""}});
  auto listening = oauth.wait_for_output("listening ", 20s);
  ASSERT_TRUE(listening) << "oauth_mcp_server.js did not start: " << oauth.output();
  const std::string oauth_url =
      "http://localhost:" + std::to_string(std::stoi(listening->substr(listening->find("listening ") + 10)));
  std::stringstream shipped;
  shipped << std::ifstream(source_path("servers/mcp.json")).rdbuf();
  std::string config_text = shipped.str();
  const std::string config_dir = "${MCP_CONFIG_DIR}";
  for (auto at = config_text.find(config_dir); at != std::string::npos; at = config_text.find(config_dir, at)) {
    config_text.replace(at, config_dir.size(), source_path("servers"));
  }
  auto config = nlohmann::json::parse(config_text);
  config["mcpServers"]["notes"] = {{"scope", "user"}, {"url", oauth_url + "/mcp"}};
  std::ofstream(root / "mcp.json") << config.dump(2);
  fake_llm_server llm;
  {
    harness_server server(end_to_end_env(owner, root.string(), files.string(), llm.openai_base_url(),
                                         {{"API_KEYS_FILE", keys_file.string()},
                                          {"MCP_CONFIG", (root / "mcp.json").string()},
                                          {"TOOL_POLICY_FILE", (root / "policy.json").string()},
                                          // The default rate limit stays on: the pages must live within it.
                                          {"SANDBOX_TIMEOUT_MS", "20000"}}));
    ASSERT_TRUE(server.wait_healthy(1, {"store"}, 60s, "Authorization: Bearer " + admin_key + "\r\n"))
        << server.call("GET", "/health")->body;
    // A second server with no key made, on loopback: it runs open, and the dashboard must say so.
    harness_server open_server({{"ENV_FILE", "/dev/null"},
                                {"PORT", "0"},
                                {"API_KEYS_FILE", (root / "open" / "api-keys.json").string()},
                                {"STORE_PATH", (root / "open" / "harness.db").string()},
                                {"SKILLS_DIR", (root / "open" / "skills").string()},
                                {"WORKSPACE_DIR", (root / "open" / "workspace").string()},
                                {"MCP_CONFIG", source_path("tests/http/no_mcp_servers.json")},
                                {"SANDBOX_POOL_SIZE", "0"},
                                {"SANDBOX_OWNER", owner},
                                {"LLM_PROVIDER", "openai"},
                                {"LLM_BASE_URL", llm.openai_base_url()},
                                {"LLM_API_KEY", "test-key"}});

    std::map<std::string, std::string> env{
        {"HARNESS_URL", "http://127.0.0.1:" + std::to_string(server.port())},
        {"USER_KEY", alice_key},
        {"ADMIN_KEY", admin_key},
        {"LLM_URL", "http://127.0.0.1:" + std::to_string(llm.port())},
        {"FILES_DIR", files.string()},
        {"OPEN_URL", "http://127.0.0.1:" + std::to_string(open_server.port())},
        {"OAUTH_URL", oauth_url},
        {"NODE_EXTRA_CA_CERTS", ""},  // empty: off (it only slows node's start-up here)
    };
    if (const char* dir = std::getenv("SCREENSHOT_DIR")) env["SCREENSHOT_DIR"] = dir;
    child_process child({node, source_path("tests/ui/dashboard_test.cjs")}, env);
    auto code = child.wait_exit(240s);  // the script gives up by itself after 180 s
    if (!code) child.send_signal(SIGKILL);
    // The script's "ok:" lines say what was seen, in the test log either way.
    std::cout << child.output();
    EXPECT_EQ(code.value_or(-1), 0) << "\n--- server ---\n" << server.output();
    EXPECT_EQ(server.stop(), 0) << server.output();
    EXPECT_EQ(open_server.stop(), 0) << open_server.output();
  }
  EXPECT_EQ(labelled_containers(owner), 0);
  std::error_code ec;
  fs::remove_all(root, ec);
}

}  // namespace
}  // namespace harness::testing
