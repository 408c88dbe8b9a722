// The client over Streamable HTTP: the everything server from npm in its
// streamableHttp mode, and tests/mcp/http_fault_server.js for headers, session
// expiry (404 -> fresh initialize) and JSON batch answers.
#include <gtest/gtest.h>

#include <signal.h>

#include "client.hpp"
#include "harness/mcp/errors.hpp"
#include "harness/mcp/tool_registry.hpp"
#include "http_test_support.hpp"

namespace harness::mcp {
namespace {

namespace asio = boost::asio;
using nlohmann::json;
using testing::free_port;
using testing::http_config;
using testing::http_server_fixture;
using testing::run;
using testing::sleep_for;
using testing::spawn_node;
using testing::wait_health;

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
  EXPECT_EQ(seen["version"], "2025-11-25");
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
  EXPECT_EQ(server.info->protocol_version, "2025-11-25");
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

TEST(StreamableHttp, RegistryMarksAVanishedServerDownAndReconnects) {
  asio::io_context ctx;
  const unsigned short port = free_port(ctx);
  const std::vector<std::string> args = {testing::source_dir() + "/tests/mcp/http_fault_server.js",
                                         std::to_string(port)};
  auto server = spawn_node(ctx, args);
  ASSERT_TRUE(server);
  mcp_config config;
  config.limits = testing::test_limits();
  config.servers.push_back(http_config(port));
  auto registry = create_tool_registry(ctx.get_executor(), core::real_clock(), config);
  run(ctx, registry->start());  // may fail while node starts; the registry retries
  auto health = registry->health_sources().at(0);
  ASSERT_TRUE(wait_health(ctx, *health, true)) << health->check().detail.dump();

  server->signal(SIGKILL);
  run(ctx, server->wait_exit(core::real_clock(), std::chrono::seconds(5)));
  auto failed = run(ctx, registry->call("remote__stats", json::object()));
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, harness::mcp::errc::connection_lost);
  EXPECT_FALSE(health->check().up);
  EXPECT_TRUE(health->check().detail.contains("reason"));

  server = spawn_node(ctx, args);
  ASSERT_TRUE(server);
  ASSERT_TRUE(wait_health(ctx, *health, true)) << health->check().detail.dump();
  auto stats = run(ctx, registry->call("remote__stats", json::object()));
  ASSERT_TRUE(stats) << stats.error().describe();
  run(ctx, registry->stop());
  server->signal(SIGTERM);
  run(ctx, server->wait_exit(core::real_clock(), std::chrono::seconds(5)));
}

TEST(StreamableHttp, AUserScopedServerKeepsASessionAndCredentialsPerUser) {
  asio::io_context ctx;
  const unsigned short port = free_port(ctx);
  auto server = spawn_node(ctx, {testing::source_dir() + "/tests/mcp/http_fault_server.js", std::to_string(port)});
  ASSERT_TRUE(server);
  mcp_config config;
  config.limits = testing::test_limits();
  auto remote = http_config(port);
  remote.scope = server_scope::user;
  remote.headers["Authorization"] = "Bearer token-of-" + std::string(user_id_placeholder);
  config.servers.push_back(remote);
  auto registry = create_tool_registry(ctx.get_executor(), core::real_clock(), config);
  run(ctx, registry->start());
  auto headers_of = [&](const std::string& user) -> json {
    call_deadline deadline;
    deadline.user = user;
    // The first call may come before node listens: the instance then retries with backoff.
    for (int i = 0; i < 50; ++i) {
      auto seen = run(ctx, registry->call("remote__headers", json::object(), deadline));
      if (seen) return *seen;
      sleep_for(ctx, std::chrono::milliseconds(200));
    }
    return nullptr;
  };
  auto alice = headers_of("alice");
  auto bob = headers_of("bob");
  ASSERT_TRUE(alice.is_object() && bob.is_object()) << alice.dump() << bob.dump();
  EXPECT_EQ(alice["authorization"], "Bearer token-of-alice");
  EXPECT_EQ(bob["authorization"], "Bearer token-of-bob");
  EXPECT_NE(alice["session"], bob["session"]) << "one MCP session per user";
  EXPECT_EQ(headers_of("alice")["session"], alice["session"]) << "and it is kept";
  run(ctx, registry->stop());
  server->signal(SIGTERM);
  run(ctx, server->wait_exit(core::real_clock(), std::chrono::seconds(5)));
}

}  // namespace
}  // namespace harness::mcp
