// The client against real servers of MCP 2026-07-28 only: the official SDK
// 2.x server with the 2025 era refused (tests/mcp/modern_server.mjs), over
// stdio and Streamable HTTP. server/discover, the envelope on every request
// and the headers that repeat it, an input_required tool answered by the
// person behind the call (or declined without one), a tool that answers
// with a task polled to its result, or cancelled at the call's deadline, and
// list_changed heard on the subscriptions/listen stream.
// And the probe's other side: a 2025 server that answers nothing before
// initialize is started again and initialized, and remembered as such.
#include <gtest/gtest.h>

#include "client.hpp"
#include "harness/mcp/errors.hpp"
#include "harness/mcp/tool_registry.hpp"
#include "http_test_support.hpp"
#include "mcp_test_support.hpp"
#include "tool_result.hpp"

namespace harness::mcp {
namespace {

namespace asio = boost::asio;
using nlohmann::json;
using testing::contains;
using testing::run;

std::string modern_server() {
  return testing::source_dir() + "/tests/mcp/modern_server.mjs";
}

json text_of(const result<json>& answer) {
  if (!answer) return answer.error().describe();
  auto value = tool_result_value(*answer);
  return value ? *value : json(value.error().describe());
}

result<json> call(asio::io_context& ctx, client& c, std::string tool, json arguments, call_deadline deadline = {}) {
  return run(ctx, c.call_tool(std::move(tool), std::move(arguments), std::move(deadline)));
}

// What a server of the new era must give through the client.
void expect_new_era_works(asio::io_context& ctx, client& c) {
  EXPECT_EQ(c.server().protocol_version, "2026-07-28");
  EXPECT_EQ(c.server().info["name"], "modern-server");
  auto tools = run(ctx, c.list_tools());
  ASSERT_TRUE(tools) << tools.error().describe();
  EXPECT_EQ(tools->size(), 10u);

  EXPECT_EQ(text_of(call(ctx, c, "echo", {{"text", "hello"}})), "hello");
  EXPECT_EQ(text_of(call(ctx, c, "add", {{"a", 2}, {"b", 3}})), json({{"sum", 5}}));
  auto seen = text_of(call(ctx, c, "meta", json::object()));
  EXPECT_EQ(seen["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28") << seen;
  EXPECT_EQ(seen["_meta"]["io.modelcontextprotocol/clientInfo"]["name"], "mcp-harness") << seen;

  // input_required: whoever stands behind the call answers, and the call is sent again.
  std::vector<json> asked;
  call_deadline with_person;
  with_person.elicit = [&asked](json params) -> asio::awaitable<std::optional<json>> {
    asked.push_back(params);
    co_return json{{"action", "accept"}, {"content", {{"answer", "42"}}}};
  };
  EXPECT_EQ(text_of(call(ctx, c, "ask", {{"question", "What is the answer?"}}, with_person)), "answer: 42");
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0]["message"], "What is the answer?");
  // Nobody behind the call, and no default for the required answer: declined.
  EXPECT_EQ(text_of(call(ctx, c, "ask", {{"question", "Anyone?"}})), "declined");

  // A task: polled until it completes.
  EXPECT_EQ(text_of(call(ctx, c, "slow", {{"ms", 300}})), "slept 300 ms");
  // A task that outlives the call's deadline is cancelled on the server.
  auto started = std::chrono::steady_clock::now();
  auto late = call(ctx, c, "slow", {{"ms", 60000}}, call_deadline::until(started + std::chrono::milliseconds(700)));
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, mcp::errc::timeout) << late.error().describe();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  auto tasks = text_of(call(ctx, c, "tasks", json::object()));
  ASSERT_EQ(tasks.size(), 2u) << tasks;
  EXPECT_EQ(tasks[0]["status"], "completed") << tasks;
  EXPECT_EQ(tasks[1]["status"], "cancelled") << tasks;
}

// The server's list_changed comes on the subscriptions/listen stream the
// client keeps open (the new era sends nothing unasked).
void expect_list_changed_is_heard(asio::io_context& ctx, client& c) {
  int changed = 0;
  c.on_tools_changed([&changed] { ++changed; });
  // Over HTTP the stream is a POST of its own: wait until the server has it.
  for (int i = 0; i < 100; ++i) {
    auto open = text_of(call(ctx, c, "listening", json::object()));
    if (open["listening"].is_null() || open["listening"] != 0) break;
    testing::sleep_for(ctx, std::chrono::milliseconds(50));
  }
  EXPECT_EQ(text_of(call(ctx, c, "add_tool", json::object())), "added extra");
  for (int i = 0; i < 100 && changed == 0; ++i) testing::sleep_for(ctx, std::chrono::milliseconds(50));
  EXPECT_EQ(changed, 1);
  auto tools = run(ctx, c.list_tools());
  ASSERT_TRUE(tools) << tools.error().describe();
  EXPECT_TRUE(std::any_of(tools->begin(), tools->end(), [](const json& t) { return t["name"] == "extra"; }));
}

TEST(ModernServer, AStdioServerOfTheNewEraIsUsedInIt) {
  asio::io_context ctx;
  auto limits = testing::test_limits();
  auto config = testing::node_server("modern", {modern_server(), "stdio"});
  auto c = create_client(ctx.get_executor(), core::real_clock(),
                         create_stdio_transport(ctx.get_executor(), core::real_clock(), config, limits), limits);
  auto info = run(ctx, c->connect());
  ASSERT_TRUE(info) << info.error().describe();
  expect_new_era_works(ctx, *c);
  expect_list_changed_is_heard(ctx, *c);
  run(ctx, c->close());
}

TEST(ModernServer, AStreamableHttpServerOfTheNewEraIsUsedInItWithTheHeadersThatRepeatTheBody) {
  asio::io_context ctx;
  const auto port = testing::free_port(ctx);
  testing::http_server_fixture server(ctx, {modern_server(), "http", std::to_string(port)}, {},
                                      testing::http_config(port));
  ASSERT_TRUE(server.info) << server.info.error().describe();
  expect_new_era_works(ctx, *server.c);
  auto seen = text_of(call(ctx, *server.c, "meta", json::object()));
  EXPECT_EQ(seen["headers"], json({{"MCP-Protocol-Version", "2026-07-28"},
                                   {"Mcp-Method", "tools/call"},
                                   {"Mcp-Name", "meta"},
                                   {"traceparent", nullptr}}))
      << seen;
  // A traced call carries its W3C trace context in _meta and, over HTTP, as
  // the header too. (Tracing off: the caller's context is passed on as it came.)
  call_deadline traced;
  traced.trace = telemetry::span_parent(nullptr, {"0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", true, "v=1"});
  auto with_trace = text_of(run(ctx, server.c->call_tool("meta", json::object(), traced)));
  EXPECT_EQ(with_trace["headers"]["traceparent"], "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
      << with_trace;
  EXPECT_EQ(with_trace["_meta"]["traceparent"], "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
  EXPECT_EQ(with_trace["_meta"]["tracestate"], "v=1");
  expect_list_changed_is_heard(ctx, *server.c);

  // A call given up at its deadline is cancelled by closing its POST, the
  // era's only way over HTTP: no notifications/cancelled is POSTed.
  auto started = std::chrono::steady_clock::now();
  auto late =
      call(ctx, *server.c, "sleep", {{"ms", 60000}}, call_deadline::until(started + std::chrono::milliseconds(500)));
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, mcp::errc::timeout) << late.error().describe();
  json hangups;
  for (int i = 0; i < 100; ++i) {
    hangups = text_of(call(ctx, *server.c, "hangups", json::object()));
    if (hangups["closed"].contains("sleep")) break;
    testing::sleep_for(ctx, std::chrono::milliseconds(50));
  }
  EXPECT_EQ(hangups["closed"].value("sleep", 0), 1) << hangups;
  EXPECT_EQ(hangups["notified"], json::array()) << hangups;
}

// 2025 servers that answer nothing before initialize (some SDKs' do not):
// the probe times out, the process is started again and initialized, and
// the supervisor remembers it, so a restart does not probe again.
TEST(ModernServer, AServerSilentToTheProbeIsStartedAgainForInitializeAndRemembered) {
  asio::io_context ctx;
  mcp_config config;
  config.servers = {testing::fault_server("silent_before_initialize")};
  config.limits = testing::test_limits();
  config.limits.request_timeout = std::chrono::milliseconds(1500);
  auto registry = create_tool_registry(ctx.get_executor(), core::real_clock(), config);
  run(ctx, registry->start());
  auto status = registry->status()["servers"]["fault"];
  ASSERT_EQ(status["state"], "ready") << status;
  EXPECT_EQ(status["protocolVersion"], "2025-11-25") << status;
  EXPECT_EQ(status["restarts"], 0) << "a start over for the handshake is no crash: " << status;
  const int first_pid = status["pid"];

  // A crash: the restart goes straight to initialize (no 1.5 s probe to wait out).
  auto crashed = run(ctx, registry->call("fault__crash", json::object()));
  ASSERT_FALSE(crashed);
  auto health = registry->health_sources();
  ASSERT_TRUE(testing::wait_health(ctx, *health[0], true));
  auto echoed = run(ctx, registry->call("fault__echo", {{"text", "back"}}));
  ASSERT_TRUE(echoed) << echoed.error().describe();
  EXPECT_NE(registry->status()["servers"]["fault"]["pid"], first_pid);
  run(ctx, registry->stop());
}

}  // namespace
}  // namespace harness::mcp
