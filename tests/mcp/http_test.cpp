// The client over Streamable HTTP: the everything server from npm in its
// streamableHttp mode, and tests/mcp/http_fault_server.js for headers, session
// expiry (404 -> fresh initialize) and JSON batch answers.
#include <gtest/gtest.h>

#include <signal.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "child_process.hpp"
#include "harness/mcp/client.hpp"
#include "harness/mcp/tool_registry.hpp"
#include "mcp_test_support.hpp"

namespace harness::mcp {
namespace {

namespace asio = boost::asio;
using nlohmann::json;
using testing::run;

// A free loopback port for the HTTP server.
unsigned short free_port(asio::io_context& ctx) {
  asio::ip::tcp::acceptor acceptor(ctx, {asio::ip::make_address("127.0.0.1"), 0});
  return acceptor.local_endpoint().port();
}

// Starts `node script args... ` and connects an HTTP client to it; the server needs
// a moment to listen, so the handshake is retried for up to 20 s.
struct http_server_fixture {
  asio::io_context& ctx;
  std::unique_ptr<detail::child_process> child;
  std::shared_ptr<client> c;
  result<server_info> info = make_error("not_started", "");

  http_server_fixture(asio::io_context& io, std::vector<std::string> args, std::map<std::string, std::string> env,
                      server_config config)
      : ctx(io) {
    detail::spawn_request request;
    request.command = "node";
    request.args = std::move(args);
    request.env = detail::minimal_environment();
    for (auto& [k, v] : env) request.env[k] = v;
    auto spawned = detail::child_process::spawn(ctx.get_executor(), request);
    if (!spawned) {
      info = spawned.error();
      return;
    }
    child = std::move(*spawned);
    auto limits = testing::test_limits();
    for (int i = 0; i < 100 && !info; ++i) {
      c = create_client(ctx.get_executor(), create_http_transport(ctx.get_executor(), config, limits), limits);
      info = run(ctx, c->connect());
      if (!info) {
        run(ctx, c->close());
        run(ctx, [&]() -> asio::awaitable<void> {
          asio::steady_timer t(ctx, std::chrono::milliseconds(200));
          co_await t.async_wait(asio::use_awaitable);
        }());
      }
    }
  }
  ~http_server_fixture() {
    if (c) run(ctx, c->close());
    if (child) {
      child->signal(SIGTERM);
      run(ctx, child->wait_exit(std::chrono::seconds(5)));
    }
  }
};

server_config http_config(unsigned short port) {
  server_config config;
  config.name = "remote";
  config.kind = transport_kind::http;
  config.url = "http://127.0.0.1:" + std::to_string(port) + "/mcp";
  return config;
}

TEST(StreamableHttp, HeadersSessionExpiryAndBatches) {
  asio::io_context ctx;
  const unsigned short port = free_port(ctx);
  auto config = http_config(port);
  config.headers["Authorization"] = "Bearer test-token";
  http_server_fixture server(ctx, {testing::source_dir() + "/tests/mcp/http_fault_server.js", std::to_string(port)}, {},
                             config);
  ASSERT_TRUE(server.info) << server.info.error().describe();
  auto& c = server.c;
  auto headers = run(ctx, c->call_tool("headers", json::object()));
  ASSERT_TRUE(headers) << headers.error().describe();
  auto seen = json::parse((*headers)["content"][0]["text"].get<std::string>());
  EXPECT_EQ(seen["authorization"], "Bearer test-token");
  EXPECT_EQ(seen["version"], "2025-06-18");
  EXPECT_EQ(seen["accept"], "application/json, text/event-stream");
  EXPECT_EQ(seen["session"], "session-1");

  // The server forgets the session: the next request gets a 404, the client
  // initializes again and retries it once.
  ASSERT_TRUE(run(ctx, c->call_tool("expire", json::object())));
  auto stats = run(ctx, c->call_tool("stats", json::object()));
  ASSERT_TRUE(stats) << stats.error().describe();
  EXPECT_EQ(json::parse((*stats)["content"][0]["text"].get<std::string>())["initializes"], 2);

  auto batched = run(ctx, c->call_tool("batch", json::object()));
  ASSERT_TRUE(batched) << batched.error().describe();
  EXPECT_EQ((*batched)["content"][0]["text"], "\"batched\"");
}

TEST(StreamableHttp, EverythingServerOverHttp) {
  asio::io_context ctx;
  const unsigned short port = free_port(ctx);
  http_server_fixture server(ctx, {testing::npm_server("server-everything"), "streamableHttp"},
                             {{"PORT", std::to_string(port)}}, http_config(port));
  ASSERT_TRUE(server.info) << server.info.error().describe();
  EXPECT_EQ(server.info->protocol_version, "2025-06-18");
  auto& c = server.c;
  auto tools = run(ctx, c->list_tools());
  ASSERT_TRUE(tools) << tools.error().describe();
  EXPECT_GT(tools->size(), 5u);
  auto echoed = run(ctx, c->call_tool("echo", {{"message", "over http"}}));
  ASSERT_TRUE(echoed) << echoed.error().describe();
  EXPECT_NE(echoed->dump().find("over http"), std::string::npos);
  // Progress arrives on the POST's SSE stream and extends the deadline here too.
  auto slow = run(ctx, c->call_tool("trigger-long-running-operation", {{"duration", 1.5}, {"steps", 3}},
                                    std::chrono::milliseconds(1000)));
  ASSERT_TRUE(slow) << slow.error().describe();
}

// Spawns node with args (the server for the test); the caller waits for it to listen.
std::unique_ptr<detail::child_process> spawn_node(asio::io_context& ctx, std::vector<std::string> args) {
  detail::spawn_request request;
  request.command = "node";
  request.args = std::move(args);
  request.env = detail::minimal_environment();
  auto child = detail::child_process::spawn(ctx.get_executor(), request);
  return child ? std::move(*child) : nullptr;
}

// Polls (bounded: 30 s) until the health source says `up`.
bool wait_health(asio::io_context& ctx, const core::health_source& health, bool up) {
  return run(ctx, [&]() -> asio::awaitable<bool> {
    asio::steady_timer t(ctx);
    for (int i = 0; i < 300 && health.check().up != up; ++i) {
      t.expires_after(std::chrono::milliseconds(100));
      co_await t.async_wait(asio::use_awaitable);
    }
    co_return health.check().up == up;
  }());
}

TEST(StreamableHttp, RegistryMarksAVanishedServerDownAndReconnects) {
  asio::io_context ctx;
  const unsigned short port = free_port(ctx);
  const std::vector<std::string> args = {testing::source_dir() + "/tests/mcp/http_fault_server.js", std::to_string(port)};
  auto server = spawn_node(ctx, args);
  ASSERT_TRUE(server);
  mcp_config config;
  config.limits = testing::test_limits();
  config.servers.push_back(http_config(port));
  auto registry = create_tool_registry(ctx.get_executor(), config);
  run(ctx, registry->start());  // may fail while node starts; the registry retries
  auto health = registry->health_sources().at(0);
  ASSERT_TRUE(wait_health(ctx, *health, true)) << health->check().detail.dump();

  server->signal(SIGKILL);
  run(ctx, server->wait_exit(std::chrono::seconds(5)));
  auto failed = run(ctx, registry->call("remote__stats", json::object()));
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, "mcp_connection_lost");
  EXPECT_FALSE(health->check().up);
  EXPECT_TRUE(health->check().detail.contains("reason"));

  server = spawn_node(ctx, args);
  ASSERT_TRUE(server);
  ASSERT_TRUE(wait_health(ctx, *health, true)) << health->check().detail.dump();
  auto stats = run(ctx, registry->call("remote__stats", json::object()));
  ASSERT_TRUE(stats) << stats.error().describe();
  run(ctx, registry->stop());
  server->signal(SIGTERM);
  run(ctx, server->wait_exit(std::chrono::seconds(5)));
}

}  // namespace
}  // namespace harness::mcp
