// Each way the real binary can fail to start ends the same way: one line on
// stderr that names the setting to fix, and exit code 2 (app.hpp's promise),
// never an exception through std::terminate.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "support/child_process.hpp"

namespace harness::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

struct startup_case {
  const char* label;
  std::map<std::string, std::string> env;
  const char* must_name;  // the setting the line names
};

class StartupFailure : public ::testing::TestWithParam<startup_case> {};

// A temporary folder with the files the cases point at.
fs::path scratch() {
  static fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("harness-startup-" + std::to_string(getpid()));
    fs::create_directories(d / "skills" / "examples");  // with examples: no warning line
    std::ofstream(d / "not-json.json") << "{ this is not json";
    std::ofstream(d / "bad-patterns.json") << R"({"custom_id": "(unclosed"})";
    return d;
  }();
  return dir;
}

TEST_P(StartupFailure, IsOneLineNamingTheSettingAndExitCode2) {
  const auto& c = GetParam();
  std::map<std::string, std::string> env{{"ENV_FILE", "/dev/null"},
                                         {"PORT", "0"},
                                         {"HOST", "127.0.0.1"},
                                         {"STORE_PATH", (scratch() / "harness.db").string()},
                                         {"SKILLS_DIR", (scratch() / "skills").string()},
                                         {"WORKSPACE_DIR", (scratch() / "workspace").string()},
                                         {"SANDBOX_CALL_SOCKET_DIR", (scratch() / "sockets").string()}};
  for (const auto& [k, v] : c.env) env[k] = v;
  child_process harness({binary_path("src/mcp-harness")}, env);
  EXPECT_EQ(harness.wait_exit(20s), 2) << harness.output();
  const std::string& out = harness.output();
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_EQ(out.rfind("mcp-harness: ", 0), 0u) << out;
  EXPECT_NE(out.find(c.must_name), std::string::npos) << out;
}

// A file where a folder must be: create_directories fails even for root.
const std::string blocked = "/dev/null/harness";

INSTANTIATE_TEST_SUITE_P(
    EveryStartUpCheck, StartupFailure,
    ::testing::Values(
        startup_case{"skills_dir", {{"SKILLS_DIR", blocked + "/skills"}}, "SKILLS_DIR"},
        startup_case{"workspace_dir", {{"WORKSPACE_DIR", blocked + "/workspace"}}, "WORKSPACE_DIR"},
        startup_case{"store_path",
                     {{"STORE_PATH", blocked + "/harness.db"},
                      {"LLM_PROVIDER", "openai"},
                      {"LLM_BASE_URL", "http://127.0.0.1:9/v1"},
                      {"LLM_API_KEY", "k"}},
                     "STORE_PATH"},
        startup_case{"mcp_config_missing", {{"MCP_CONFIG", "/nonexistent/mcp.json"}}, "MCP_CONFIG"},
        startup_case{"mcp_config_malformed", {{"MCP_CONFIG", (scratch() / "not-json.json").string()}}, "not-json.json"},
        startup_case{"pii_patterns", {{"PII_PATTERNS_FILE", (scratch() / "bad-patterns.json").string()}}, "custom_id"},
        startup_case{"llm_provider", {{"LLM_PROVIDER", "nonsense"}}, "LLM_PROVIDER"},
        startup_case{"port_setting", {{"PORT", "http"}}, "PORT"},
        // Replicas need their own names and one vault key: refused before the store is opened.
        startup_case{
            "store_url_default_owner", {{"STORE_URL", "postgresql:///harness?host=/nonexistent"}}, "SANDBOX_OWNER"},
        startup_case{"store_url_own_vault_key",
                     {{"STORE_URL", "postgresql:///harness?host=/nonexistent"}, {"SANDBOX_OWNER", "replica-a"}},
                     "VAULT_KEY"},
        startup_case{"store_url_unreachable",
                     {{"STORE_URL", "postgresql://harness:secret-word@/harness?host=/nonexistent"},
                      {"VAULT_KEY", std::string(64, 'a')},
                      {"SANDBOX_OWNER", "replica-a"}},
                     "STORE_URL"},
        startup_case{"store_url_scheme", {{"STORE_URL", "mysql://db/harness"}}, "STORE_URL"},
        // The engine (./scripts/test.sh starts it) lists no such runtime: every sandbox would fail.
        startup_case{"sandbox_runtime", {{"SANDBOX_RUNTIME", "mcp-harness-no-such-runtime"}}, "SANDBOX_RUNTIME="}),
    [](const ::testing::TestParamInfo<startup_case>& p) { return std::string(p.param.label); });

TEST(StartupFailureOfTheListener, APortInUseIsOneLineNamingPort) {
  int taken = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(taken, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(taken, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(taken, 1), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(taken, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  std::string port = std::to_string(ntohs(addr.sin_port));
  child_process harness({binary_path("src/mcp-harness")}, {{"ENV_FILE", "/dev/null"},
                                                           {"PORT", port},
                                                           {"HOST", "127.0.0.1"},
                                                           {"STORE_PATH", (scratch() / "harness.db").string()},
                                                           {"SKILLS_DIR", (scratch() / "skills").string()},
                                                           {"WORKSPACE_DIR", (scratch() / "workspace").string()}});
  EXPECT_EQ(harness.wait_exit(20s), 2) << harness.output();
  const std::string& out = harness.output();
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_NE(out.find(port), std::string::npos) << out;
  ::close(taken);
}

}  // namespace
}  // namespace harness::testing
