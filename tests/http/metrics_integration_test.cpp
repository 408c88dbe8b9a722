// Starts the real mcp-harness binary, sends it a few requests (one of them a
// real /execute in a real sandbox) and reads them back from GET /metrics.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include <unistd.h>

#include "support/child_process.hpp"
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

TEST(MetricsIntegration, RealServerCountsRequestsAndSandboxRuns) {
  std::map<std::string, std::string> env{
      {"PORT", "0"},
      {"ENV_FILE", "/dev/null"},
      {"MCP_CONFIG", source_path("tests/http/no_mcp_servers.json")},
      {"SANDBOX_POOL_SIZE", "0"},
      {"SANDBOX_OWNER", "metrics-it-" + std::to_string(getpid())},
  };
  child_process server({binary_path("src/mcp-harness")}, env);
  auto line = server.wait_for_output("listening on http://", 20s);
  ASSERT_TRUE(line) << server.output();
  auto url = line->find("http://");
  auto port = static_cast<unsigned short>(std::stoi(line->substr(line->find(':', url + 7) + 1)));

  for (int i = 0; i < 5; ++i) ASSERT_TRUE(http_call(port, "GET", "/health"));
  ASSERT_EQ(http_call(port, "GET", "/nowhere")->status, 404);
  auto executed = http_call(port, "POST", "/execute", R"({"userId":"u1","code":"return 1+1"})", "application/json");
  ASSERT_TRUE(executed);
  ASSERT_EQ(executed->status, 200) << executed->body;
  ASSERT_EQ(executed->json()["result"], 2) << executed->body;

  auto scrape = http_call(port, "GET", "/metrics");
  ASSERT_TRUE(scrape);
  ASSERT_EQ(scrape->status, 200);
  EXPECT_EQ(scrape->header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string& text = scrape->body;
  EXPECT_EQ(sample_value(text, R"(harness_http_requests_total{method="GET",route="/health",status=")"), 5) << text;
  EXPECT_EQ(sample_value(text, R"(harness_http_requests_total{method="GET",route="unmatched",status="404"})"), 1);
  EXPECT_EQ(sample_value(text, R"(harness_http_requests_total{method="POST",route="/execute",status="200"})"), 1);
  EXPECT_EQ(sample_value(text, R"(harness_http_request_duration_seconds_count{method="POST",route="/execute"})"), 1);
  EXPECT_EQ(sample_value(text, R"(harness_sandbox_execs_total{outcome="ok"})"), 1) << text;
  EXPECT_EQ(sample_value(text, R"(harness_sandbox_claims_total{kind="cold"})"), 1) << text;
  EXPECT_EQ(sample_value(text, R"(harness_sandbox_claims_total{kind="warm"})"), 0) << text;
  EXPECT_EQ(sample_value(text, "harness_sandbox_pool_ready "), 0) << text;
  EXPECT_EQ(sample_value(text, R"(harness_build_info{version=")"), 1) << text;
  EXPECT_GT(sample_value(text, "process_start_time_seconds "), 1.6e9) << text;
  // Every line is a comment or `name{labels} value`.
  std::regex sample_line(R"(^(# (HELP|TYPE) .*|[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? [-+0-9.eE]+|.* [+-]Inf|.* NaN)$)");
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) EXPECT_TRUE(std::regex_match(l, sample_line)) << l;
}

}  // namespace
}  // namespace harness::testing
