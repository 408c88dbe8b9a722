// Starts the real mcp-harness binary, sends it a few requests (one of them a
// real /execute in a real sandbox) and reads them back from GET /metrics.
#include <gtest/gtest.h>

#include <memory>
#include <regex>
#include <sstream>
#include <thread>

#include <unistd.h>

#include "support/harness_server.hpp"
#include "support/raw_http.hpp"

namespace harness::testing {
namespace {

using namespace std::chrono_literals;

// The value of the first sample line that starts with `prefix` (name and labels), or -1.
double sample_value(const std::string& text, const std::string& prefix) {
  auto at = text.find("\n" + prefix);
  if (at == std::string::npos) return -1;
  auto line_end = text.find('\n', at + 1);
  auto line = text.substr(at + 1, line_end - at - 1);
  return std::stod(line.substr(line.rfind(' ') + 1));
}

// The sum over every sample line starting with `prefix` (e.g. one route, any status).
double sample_sum(const std::string& text, const std::string& prefix) {
  double sum = 0;
  for (auto at = text.find("\n" + prefix); at != std::string::npos; at = text.find("\n" + prefix, at + 1)) {
    auto line_end = text.find('\n', at + 1);
    auto line = text.substr(at + 1, line_end - at - 1);
    sum += std::stod(line.substr(line.rfind(' ') + 1));
  }
  return sum;
}

// The real binary on a free port with `mcp_config`, no warm pool, and an owner
// label of its own so its start-up sweep touches no other test's containers.
std::string owner() {
  return "metrics-it-" + std::to_string(getpid());
}

std::unique_ptr<harness_server> start_server(const std::string& mcp_config) {
  return std::make_unique<harness_server>(std::map<std::string, std::string>{
      {"PORT", "0"},
      {"ENV_FILE", "/dev/null"},
      {"MCP_CONFIG", mcp_config},
      {"SANDBOX_POOL_SIZE", "0"},
      {"SANDBOX_OWNER", owner()},
  });
}

// A graceful stop removes every sandbox the server started (a SIGKILL at the
// end of the test would leave the one-shot sandbox behind, exited).
void expect_clean_stop(harness_server& server) {
  EXPECT_EQ(server.stop(), 0) << server.output();
  EXPECT_EQ(labelled_containers(owner()), 0);
}

std::string execute(unsigned short port, const std::string& code) {
  auto r =
      http_call(port, "POST", "/execute", nlohmann::json{{"userId", "u1"}, {"code", code}}.dump(), "application/json");
  if (!r || r->status != 200) return "execute failed: " + (r ? r->body : std::string("no answer"));
  return r->json().contains("error") ? r->json()["error"].dump() : r->json()["result"].dump();
}

TEST(MetricsIntegration, RealServerCountsRequestsAndSandboxRuns) {
  auto server = start_server(source_path("tests/http/no_mcp_servers.json"));
  auto port = server->port();

  for (int i = 0; i < 5; ++i) ASSERT_TRUE(http_call(port, "GET", "/health"));
  ASSERT_EQ(http_call(port, "GET", "/nowhere")->status, 404);
  ASSERT_EQ(execute(port, "return 1+1"), "2");

  auto scrape = http_call(port, "GET", "/metrics");
  ASSERT_TRUE(scrape);
  ASSERT_EQ(scrape->status, 200);
  EXPECT_EQ(scrape->header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string& text = scrape->body;
  // /health may answer 503 while the engine check is still pending, then 200: count both.
  EXPECT_EQ(sample_sum(text, R"(harness_http_requests_total{method="GET",route="/health",status=")"), 5) << text;
  EXPECT_EQ(sample_value(text, R"(harness_http_requests_total{method="GET",route="unmatched",status="404"})"), 1);
  EXPECT_EQ(sample_value(text, R"(harness_http_requests_total{method="POST",route="/execute",status="200"})"), 1);
  EXPECT_EQ(sample_value(text, R"(harness_http_request_duration_seconds_count{method="POST",route="/execute"})"), 1);
  EXPECT_EQ(sample_value(text, R"(harness_sandbox_execs_total{outcome="ok"})"), 1) << text;
  EXPECT_EQ(sample_value(text, R"(harness_sandbox_claims_total{kind="cold"})"), 1) << text;
  EXPECT_EQ(sample_value(text, R"(harness_sandbox_claims_total{kind="warm"})"), 0) << text;
  EXPECT_EQ(sample_value(text, "harness_sandbox_pool_ready "), 0) << text;
  // The cold sandbox was moved onto its call socket (the default SANDBOX_CALL_SOCKET_DIR).
  EXPECT_EQ(sample_value(text, R"(harness_sandbox_links_total{result="linked"})"), 1) << text;
  EXPECT_EQ(sample_value(text, R"(harness_sandbox_links_total{result="stdio"})"), 0) << text;
  EXPECT_EQ(sample_value(text, R"(harness_build_info{version=")"), 1) << text;
  EXPECT_GT(sample_value(text, "process_start_time_seconds "), 1.6e9) << text;
  // Every line is a comment or `name{labels} value`.
  std::regex sample_line(R"(^(# (HELP|TYPE) .*|[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? [-+0-9.eE]+|.* [+-]Inf|.* NaN)$)");
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) EXPECT_TRUE(std::regex_match(l, sample_line)) << l;
  expect_clean_stop(*server);
}

// A real MCP server (server-everything over stdio) behind the sandbox: tool
// calls by server, tool and outcome, and the PII the censor tokenized on the way in.
TEST(MetricsIntegration, ToolCallsAndPiiDetectionsFromSandboxCode) {
  auto server = start_server(source_path("bench/mcp_everything.json"));
  for (int i = 0; i < 300; ++i) {  // the MCP server starts in the background
    auto health = http_call(server->port(), "GET", "/health");
    if (health && health->json()["components"]["mcp.everything"]["status"] == "up") break;
    std::this_thread::sleep_for(100ms);
  }
  auto result = execute(server->port(),
                        "const a = await callMCPTool('everything__echo', {message: 'write to bob@example.com'});\n"
                        "await callMCPTool('everything__echo', {message: 'again bob@example.com'});\n"
                        "try { await callMCPTool('nosuch__tool', {}) } catch (e) {}\n"
                        "try { await callMCPTool('everything__made_up_' + 'x'.repeat(200), {}) } catch (e) {}\n"
                        "return JSON.stringify(a).includes('[EMAIL_1]')");
  ASSERT_EQ(result, "true");

  auto scrape = http_call(server->port(), "GET", "/metrics");
  ASSERT_TRUE(scrape);
  const std::string& text = scrape->body;
  EXPECT_EQ(sample_value(text, R"(harness_mcp_tool_calls_total{server="everything",tool="echo",outcome="ok"})"), 2)
      << text;
  EXPECT_EQ(
      sample_value(text, R"(harness_mcp_tool_calls_total{server="unknown",tool="unknown",outcome="mcp_unknown_tool"})"),
      1)
      << text;
  EXPECT_EQ(sample_value(text, R"(harness_mcp_tool_call_duration_seconds_count{server="everything",tool="echo"})"), 2);
  // The same address twice is one value in the task's vault: counted once.
  EXPECT_EQ(sample_value(text, R"(harness_pii_detections_total{kind="email"})"), 1) << text;
  // A known server with a tool it does not have: the server is named, the tool is not.
  EXPECT_EQ(sample_value(
                text, R"(harness_mcp_tool_calls_total{server="everything",tool="unknown",outcome="mcp_unknown_tool"})"),
            1)
      << text;
  EXPECT_EQ(text.find("nosuch"), std::string::npos) << "unknown tool names must not become labels";
  EXPECT_EQ(text.find("made_up"), std::string::npos) << "unknown tool names must not become labels";
  expect_clean_stop(*server);
}

}  // namespace
}  // namespace harness::testing
