// Streamable HTTP answers the client cannot read, from tests/mcp/http_fault_server.js:
// a JSON body or SSE event over the size limit, one that is not JSON, and a
// connection cut in the middle of either. Each fails its call at once with an
// error that says what happened. The request timeout is 10 minutes, so a call
// that waited for its deadline would hang the test instead of passing.
#include <gtest/gtest.h>

#include "client.hpp"
#include "harness/mcp/errors.hpp"
#include "http_test_support.hpp"

namespace harness::mcp {
namespace {

namespace asio = boost::asio;
using nlohmann::json;
using testing::contains;
using testing::run;

struct HostileHttp : ::testing::Test {
  asio::io_context ctx;
  std::unique_ptr<testing::http_server_fixture> server;
  void SetUp() override {
    const unsigned short port = testing::free_port(ctx);
    server = std::make_unique<testing::http_server_fixture>(
        ctx, std::vector<std::string>{testing::source_dir() + "/tests/mcp/http_fault_server.js", std::to_string(port)},
        std::map<std::string, std::string>{}, testing::http_config(port), testing::patient_limits());
    ASSERT_TRUE(server->info) << server->info.error().describe();
  }
  void TearDown() override { server.reset(); }

  error failure(const std::string& tool) {
    auto outcome = run(ctx, server->c->call_tool(tool, json::object()));
    EXPECT_FALSE(outcome) << tool << " succeeded";
    return outcome ? error() : outcome.error();
  }
};

TEST_F(HostileHttp, OversizedJsonBodyOrSseEventIsTooLarge) {
  for (const char* tool : {"huge_json", "huge_json_chunked", "huge_sse"}) {
    auto e = failure(tool);
    EXPECT_EQ(e.code, harness::mcp::errc::message_too_large) << tool << ": " << e.describe();
    EXPECT_TRUE(contains(e.message, "over the limit of 1048576 bytes (MCP_MAX_MESSAGE_BYTES)")) << e.message;
    EXPECT_TRUE(contains(e.message, "tools/call")) << e.message;
  }
  // A body's size is its Content-Length; without one, reading stopped at the limit; an SSE
  // event was read (not held) to its end.
  EXPECT_TRUE(contains(failure("huge_json").message, "sent a message of 2097")) << failure("huge_json").message;
  EXPECT_TRUE(contains(failure("huge_json_chunked").message, "sent a message of more than 104"))
      << failure("huge_json_chunked").message;
  EXPECT_TRUE(contains(failure("huge_sse").message, "sent a message of 2097")) << failure("huge_sse").message;
}

TEST_F(HostileHttp, BodyOrSseEventThatIsNotJsonIsABadResponse) {
  for (const char* tool : {"bad_json", "bad_sse"}) {
    auto e = failure(tool);
    EXPECT_EQ(e.code, harness::mcp::errc::bad_response) << tool << ": " << e.describe();
    EXPECT_TRUE(contains(e.message, "not valid JSON")) << e.message;
  }
  auto still = run(ctx, server->c->call_tool("stats", json::object()));
  ASSERT_TRUE(still) << still.error().describe();
}

// 200,000 nested arrays in structuredContent: refused while parsing, before
// anything could copy or print the value (each of which recurses per level).
TEST_F(HostileHttp, AnswerNestedTooDeepIsABadResponse) {
  for (const char* tool : {"deep_json", "deep_sse"}) {
    auto e = failure(tool);
    EXPECT_EQ(e.code, harness::mcp::errc::bad_response) << tool << ": " << e.describe();
    EXPECT_TRUE(contains(e.message, "nests deeper than 256 levels")) << e.message;
  }
  auto still = run(ctx, server->c->call_tool("stats", json::object()));
  ASSERT_TRUE(still) << still.error().describe();
}

TEST_F(HostileHttp, ConnectionCutInTheMiddleOfAnAnswerSaysSo) {
  auto body = failure("cut_json");
  EXPECT_EQ(body.code, harness::mcp::errc::connection_lost) << body.describe();
  EXPECT_TRUE(contains(body.message, "after 500 of ")) << body.message;
  EXPECT_TRUE(contains(body.message, "cut short")) << body.message;
  auto event = failure("cut_sse");
  EXPECT_EQ(event.code, harness::mcp::errc::connection_lost) << event.describe();
  EXPECT_TRUE(contains(event.message, "in the middle of an event")) << event.message;
}

}  // namespace
}  // namespace harness::mcp
