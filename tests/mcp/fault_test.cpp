// The client against tests/mcp/fault_server.js: a real child process that
// crashes, hangs, floods stderr, writes garbage, lies about its protocol
// version and paginates without end.
#include <gtest/gtest.h>

#include <signal.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "client.hpp"
#include "harness/mcp/errors.hpp"
#include "harness/mcp/tool_registry.hpp"
#include "mcp_test_support.hpp"

namespace harness::mcp {
namespace {

namespace asio = boost::asio;
using nlohmann::json;
using testing::run;

struct FaultServer : ::testing::Test {
  asio::io_context ctx;
  std::shared_ptr<client> connect(const std::string& mode, client_limits limits = testing::test_limits()) {
    auto t = create_stdio_transport(ctx.get_executor(), core::real_clock(), testing::fault_server(mode), limits);
    auto c = create_client(ctx.get_executor(), core::real_clock(), t, limits);
    auto info = run(ctx, c->connect());
    EXPECT_TRUE(info) << (info ? "" : info.error().describe());
    return c;
  }
  void TearDown() override {
    for (auto& c : clients) run(ctx, c->close());
  }
  std::vector<std::shared_ptr<client>> clients;
};

bool process_alive(int pid) {
  return pid > 0 && ::kill(pid, 0) == 0;
}

TEST_F(FaultServer, ConcurrentCallsAreMultiplexedByRequestId) {
  auto c = connect("normal");
  clients.push_back(c);
  auto results = run(ctx, [&]() -> asio::awaitable<std::vector<std::string>> {
    std::vector<std::shared_ptr<std::optional<result<json>>>> slots;
    auto remaining = std::make_shared<int>(20);
    asio::steady_timer done(ctx, asio::steady_timer::time_point::max());
    for (int i = 0; i < 20; ++i) {
      auto slot = std::make_shared<std::optional<result<json>>>();
      slots.push_back(slot);
      asio::co_spawn(
          ctx,
          [&, i, slot]() -> asio::awaitable<void> {
            json args = {{"text", "n" + std::to_string(i)}};
            *slot = co_await c->call_tool("echo", std::move(args));
            if (--*remaining == 0) done.cancel();
          },
          asio::detached);
    }
    co_await done.async_wait(asio::as_tuple(asio::use_awaitable));
    std::vector<std::string> texts;
    for (auto& slot : slots) texts.push_back((**slot)->at("content")[0]["text"].get<std::string>());
    co_return texts;
  }());
  for (int i = 0; i < 20; ++i) EXPECT_EQ(results[i], "n" + std::to_string(i));
}

TEST_F(FaultServer, CrashMidCallFailsTheCallWithAClearError) {
  auto c = connect("normal");
  clients.push_back(c);
  auto outcome = run(ctx, c->call_tool("crash", json::object()));
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, harness::mcp::errc::connection_lost);
  EXPECT_NE(outcome.error().message.find("exit status 3"), std::string::npos) << outcome.error().message;
  EXPECT_NE(outcome.error().message.find("crashing on purpose"), std::string::npos) << outcome.error().message;
  EXPECT_FALSE(c->connected());
  auto after = run(ctx, c->call_tool("echo", {{"text", "x"}}));
  ASSERT_FALSE(after);
}

TEST_F(FaultServer, HangTimesOutThenCancelsAndALateReplyIsIgnored) {
  auto c = connect("normal");
  clients.push_back(c);
  auto outcome = run(ctx, c->call_tool("hang", json::object(), std::chrono::milliseconds(300)));
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, harness::mcp::errc::timeout);
  EXPECT_EQ(c->in_flight(), 0u);
  auto cancelled = run(ctx, c->call_tool("cancelled", json::object()));
  ASSERT_TRUE(cancelled) << cancelled.error().describe();
  auto ids = json::parse((*cancelled)["content"][0]["text"].get<std::string>());
  ASSERT_EQ(ids.size(), 1u);
  EXPECT_TRUE(ids[0].is_number_integer());
}

TEST_F(FaultServer, ProgressExtendsTheDeadlineUpToTheHardCap) {
  auto limits = testing::test_limits();
  limits.max_request_time = std::chrono::seconds(20);
  auto c = connect("normal", limits);
  clients.push_back(c);
  // 8 steps of 150 ms = 1.2 s, far past the 400 ms timeout, but each step reports progress.
  auto ok = run(ctx, c->call_tool("progress", {{"steps", 8}, {"interval_ms", 150}}, std::chrono::milliseconds(400)));
  ASSERT_TRUE(ok) << ok.error().describe();

  auto capped_limits = testing::test_limits();
  capped_limits.max_request_time = std::chrono::milliseconds(500);
  auto capped = connect("normal", capped_limits);
  clients.push_back(capped);
  auto too_long =
      run(ctx, capped->call_tool("progress", {{"steps", 20}, {"interval_ms", 100}}, std::chrono::milliseconds(400)));
  ASSERT_FALSE(too_long);
  EXPECT_EQ(too_long.error().code, harness::mcp::errc::timeout);
}

// Stray output and broken objects that answer no request are logged and skipped;
// broken answers fail their requests (hostile_test.cpp).
TEST_F(FaultServer, GarbageOnStdoutIsSkipped) {
  auto c = connect("garbage");
  clients.push_back(c);
  for (int i = 0; i < 3; ++i) {
    auto echoed = run(ctx, c->call_tool("echo", {{"text", "still here"}}));
    ASSERT_TRUE(echoed) << echoed.error().describe();
    EXPECT_EQ((*echoed)["content"][0]["text"], "still here");
  }
}

TEST_F(FaultServer, StderrFloodDoesNotBlockTheServer) {
  auto c = connect("stderr_flood");
  clients.push_back(c);
  for (int i = 0; i < 5; ++i) {
    auto echoed = run(ctx, c->call_tool("echo", {{"text", "ok"}}));
    ASSERT_TRUE(echoed) << echoed.error().describe();
  }
}

TEST_F(FaultServer, UnsupportedProtocolVersionIsAClearError) {
  auto limits = testing::test_limits();
  auto t = create_stdio_transport(ctx.get_executor(), core::real_clock(), testing::fault_server("bad_version"), limits);
  auto c = create_client(ctx.get_executor(), core::real_clock(), t, limits);
  auto info = run(ctx, c->connect());
  ASSERT_FALSE(info);
  EXPECT_EQ(info.error().code, harness::mcp::errc::unsupported_protocol);
  EXPECT_NE(info.error().message.find("1999-01-01"), std::string::npos);
  // The hint lists every version the client speaks, oldest included.
  EXPECT_NE(info.error().hint.find("2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05"), std::string::npos)
      << info.error().hint;
  const int pid = c->pid();
  run(ctx, c->close());
  EXPECT_FALSE(process_alive(pid));
}

TEST_F(FaultServer, EndlessPaginationIsBounded) {
  auto limits = testing::test_limits();
  limits.max_pages = 10;
  auto c = connect("endless_pages", limits);
  clients.push_back(c);
  auto tools = run(ctx, c->list_tools());
  ASSERT_FALSE(tools);
  EXPECT_EQ(tools.error().code, harness::mcp::errc::endless_pagination);
}

TEST_F(FaultServer, ServerRequestsGetAnswers) {
  auto c = connect("normal");
  clients.push_back(c);
  auto asked = run(ctx, c->call_tool("ask_client", json::object()));
  ASSERT_TRUE(asked) << asked.error().describe();
  const auto& answers = (*asked)["structuredContent"];
  EXPECT_EQ(answers["ping"]["result"], json::object());
  EXPECT_EQ(answers["roots/list"]["result"]["roots"], json::array());
  EXPECT_EQ(answers["sampling/createMessage"]["error"]["code"], -32601);
  // Declared, but these params have no requestedSchema: invalid params.
  EXPECT_EQ(answers["elicitation/create"]["error"]["code"], -32602);
  EXPECT_EQ(answers["no/such/method"]["error"]["code"], -32601);
}

TEST_F(FaultServer, ShutdownClosesStdinAndTheChildExits) {
  auto c = connect("normal");
  const int pid = c->pid();
  ASSERT_TRUE(process_alive(pid));
  run(ctx, c->close());
  EXPECT_FALSE(process_alive(pid));
}

mcp_config registry_config(std::vector<server_config> servers) {
  mcp_config config;
  config.servers = std::move(servers);
  config.limits = testing::test_limits();
  return config;
}

TEST_F(FaultServer, RegistryRestartsACrashedServerAndHealthShowsIt) {
  auto registry =
      create_tool_registry(ctx.get_executor(), core::real_clock(), registry_config({testing::fault_server("normal")}));
  run(ctx, registry->start());
  auto health = registry->health_sources();
  ASSERT_EQ(health.size(), 1u);
  EXPECT_EQ(health[0]->name(), "mcp.fault");
  EXPECT_TRUE(health[0]->check().up);

  auto crashed = run(ctx, registry->call("fault__crash", json::object()));
  ASSERT_FALSE(crashed);
  EXPECT_EQ(crashed.error().code, harness::mcp::errc::connection_lost);
  EXPECT_FALSE(health[0]->check().up);
  EXPECT_NE(health[0]->check().detail.value("reason", "").find("exit status 3"), std::string::npos)
      << health[0]->check().detail.dump();

  // Wait (bounded) for the restart with backoff.
  bool up = run(ctx, [&]() -> asio::awaitable<bool> {
    asio::steady_timer t(ctx);
    for (int i = 0; i < 300 && !health[0]->check().up; ++i) {
      t.expires_after(std::chrono::milliseconds(100));
      co_await t.async_wait(asio::use_awaitable);
    }
    co_return health[0]->check().up;
  }());
  ASSERT_TRUE(up);
  EXPECT_EQ(health[0]->check().detail["restarts"], 1);
  auto echoed = run(ctx, registry->call("fault__echo", {{"text", "back"}}));
  ASSERT_TRUE(echoed) << echoed.error().describe();
  EXPECT_EQ(*echoed, "back");
  run(ctx, registry->stop());
}

TEST_F(FaultServer, RegistryReportsAFailedServerWithoutHoldingUpTheOthers) {
  auto broken = testing::fault_server("crash_on_start");
  broken.name = "broken";
  auto missing = testing::node_server("missing", {});
  missing.command = "/nonexistent/mcp-server";
  auto registry = create_tool_registry(ctx.get_executor(), core::real_clock(),
                                       registry_config({testing::fault_server("normal"), broken, missing}));
  run(ctx, registry->start());
  auto status = registry->status();
  EXPECT_EQ(status["servers"]["fault"]["state"], "ready");
  EXPECT_EQ(status["servers"]["broken"]["state"], "failed");
  EXPECT_NE(status["servers"]["broken"]["reason"].get<std::string>().find("cannot start"), std::string::npos)
      << status.dump();
  EXPECT_EQ(status["servers"]["missing"]["state"], "failed");
  EXPECT_NE(status["servers"]["missing"]["reason"].get<std::string>().find("/nonexistent/mcp-server"),
            std::string::npos);
  EXPECT_FALSE(registry->list("").empty());
  auto unavailable = run(ctx, registry->call("broken__echo", json::object()));
  ASSERT_FALSE(unavailable);
  EXPECT_EQ(unavailable.error().code, harness::mcp::errc::server_unavailable);
  run(ctx, registry->stop());
}

TEST_F(FaultServer, RegistryRelistsOnListChangedAndMapsToolErrors) {
  auto registry =
      create_tool_registry(ctx.get_executor(), core::real_clock(), registry_config({testing::fault_server("normal")}));
  run(ctx, registry->start());
  EXPECT_FALSE(registry->details("fault__added"));
  ASSERT_TRUE(run(ctx, registry->call("fault__add_tool", json::object())));
  bool listed = run(ctx, [&]() -> asio::awaitable<bool> {
    asio::steady_timer t(ctx);
    for (int i = 0; i < 100 && !registry->details("fault__added"); ++i) {
      t.expires_after(std::chrono::milliseconds(50));
      co_await t.async_wait(asio::use_awaitable);
    }
    co_return bool(registry->details("fault__added"));
  }());
  EXPECT_TRUE(listed);
  auto failed = run(ctx, registry->call("fault__fail", json::object()));
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, harness::mcp::errc::tool_error);
  EXPECT_NE(failed.error().message.find("it went wrong"), std::string::npos);
  auto unknown = run(ctx, registry->call("fault__nope", json::object()));
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, harness::mcp::errc::unknown_tool);
  run(ctx, registry->stop());
}

}  // namespace
}  // namespace harness::mcp
