// A fresh server, before it has served a task, a block or an LLM call, and
// with no LLM configured: its /metrics lists every family, with zero series
// for the label values known in advance, so dashboards and alerts work from
// the first scrape.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/harness_server.hpp"

namespace harness::testing {
namespace {

namespace fs = std::filesystem;

TEST(FreshServerMetrics, ListEveryFamilyBeforeTheFirstEvent) {
  fs::path dir = fs::temp_directory_path() / ("harness-fresh-metrics-" + std::to_string(getpid()));
  harness_server server({{"ENV_FILE", "/dev/null"},
                         {"PORT", "0"},
                         {"SANDBOX_POOL_SIZE", "0"},
                         {"SANDBOX_OWNER", "harness-fresh-metrics-" + std::to_string(getpid())},
                         {"MCP_CONFIG", source_path("tests/http/no_mcp_servers.json")},
                         {"STORE_PATH", (dir / "harness.db").string()},
                         {"SKILLS_DIR", (dir / "skills").string()},
                         {"WORKSPACE_DIR", (dir / "workspace").string()},
                         {"SANDBOX_CALL_SOCKET_DIR", (dir / "sockets").string()}});
  auto metrics = server.call("GET", "/metrics");
  ASSERT_TRUE(metrics);
  ASSERT_EQ(metrics->status, 200) << metrics->body;
  const std::string& text = metrics->body;
  for (const char* family :
       {"harness_build_info", "harness_http_requests_total", "harness_http_request_duration_seconds",
        "harness_sandbox_execs_total", "harness_sandbox_exec_duration_seconds", "harness_sandbox_claims_total",
        "harness_sandbox_pool_ready", "harness_sandbox_pool_target", "harness_sandbox_start_failures_total",
        "harness_sandbox_links_total", "harness_mcp_tool_calls_total", "harness_mcp_tool_call_duration_seconds",
        "harness_pii_detections_total", "harness_llm_requests_total", "harness_llm_tokens_total",
        "harness_llm_request_duration_seconds", "harness_tasks_total", "harness_tasks_running",
        "harness_tasks_queued"}) {
    EXPECT_NE(text.find(std::string("# TYPE ") + family + " "), std::string::npos) << family << " missing:\n" << text;
  }
  for (const char* series :
       {"harness_sandbox_execs_total{outcome=\"timeout\"} 0", "harness_pii_detections_total{kind=\"email\"} 0",
        "harness_tasks_total{status=\"succeeded\"} 0", "harness_tasks_running 0",
        "harness_llm_tokens_total{provider=\"openai\",direction=\"input\"} 0"}) {
    EXPECT_NE(text.find(series), std::string::npos) << series << " missing:\n" << text;
  }
  EXPECT_EQ(server.stop(), 0) << server.output();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace harness::testing
