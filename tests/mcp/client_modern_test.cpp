// The client against servers of MCP 2026-07-28 (and the probe that tells the
// eras apart), on the in-memory fake transport and the fake clock: the
// server/discover probe and its fallbacks, the _meta envelope on every
// request, input_required answered and retried, and task answers polled to
// their end or cancelled at the deadline. The same against real servers of
// the official SDK 2.x: tests/mcp/modern_servers_test.cpp.
#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "client.hpp"
#include "fake_transport.hpp"
#include "harness/mcp/errors.hpp"
#include "mcp_test_support.hpp"
#include "support/fake_clock.hpp"

namespace harness::mcp {
namespace {

namespace asio = boost::asio;
using nlohmann::json;
using testing::fake_transport;
using testing::run;

constexpr const char* version_key = "io.modelcontextprotocol/protocolVersion";

struct ModernClient : ::testing::Test {
  asio::io_context ctx;
  harness::testing::fake_clock clock;
  std::shared_ptr<fake_transport> fake = std::make_shared<fake_transport>(ctx);

  std::shared_ptr<client> connected(std::string era, client_info info = {}) {
    fake->era = std::move(era);
    auto c = create_client(ctx.get_executor(), clock, fake, testing::test_limits(), std::move(info));
    auto connected = run(ctx, c->connect());
    EXPECT_TRUE(connected) << connected.error().describe();
    return c;
  }
  // Starts a tools/call in the background; its outcome lands in the returned slot.
  std::shared_ptr<std::optional<result<json>>> call(const std::shared_ptr<client>& c, call_deadline deadline = {}) {
    auto slot = std::make_shared<std::optional<result<json>>>();
    asio::co_spawn(
        ctx,
        [c, slot, deadline]() -> asio::awaitable<void> {
          std::string tool = "ask";  // named locals: GCC 12 mishandles temporaries in co_await
          json arguments = {{"x", 1}};
          *slot = co_await c->call_tool(tool, arguments, deadline);
        },
        asio::detached);
    settle();
    return slot;
  }
  void settle() {
    ctx.restart();
    ctx.poll();
  }
  // The requests sent with `method`, in order.
  std::vector<json> sent(const std::string& method) const {
    std::vector<json> found;
    for (const auto& m : fake->sent) {
      if (m.value("method", "") == method) found.push_back(m);
    }
    return found;
  }
};

TEST_F(ModernClient, AServerThatAnswersDiscoverIsUsedInTheNewEraWithTheEnvelopeOnEveryRequest) {
  client_info info;
  info.version = "9.9";
  auto c = connected("modern", info);
  EXPECT_EQ(c->server().protocol_version, "2026-07-28");
  EXPECT_EQ(c->server().info["name"], "fake");
  EXPECT_EQ(c->server().capabilities, json({{"tools", json::object()}}));
  EXPECT_TRUE(c->connected());
  EXPECT_TRUE(sent("initialize").empty()) << "no handshake in the new era";
  EXPECT_EQ(fake->version, "2026-07-28") << "the transport sends MCP-Protocol-Version";

  auto slot = call(c);
  ASSERT_EQ(fake->held.size(), 1u);
  const json meta = fake->held[0]["params"]["_meta"];
  EXPECT_EQ(meta[version_key], "2026-07-28");
  EXPECT_EQ(meta["io.modelcontextprotocol/clientInfo"], json({{"name", "mcp-harness"}, {"version", "9.9"}}));
  EXPECT_TRUE(
      meta["io.modelcontextprotocol/clientCapabilities"]["extensions"].contains("io.modelcontextprotocol/tasks"));
  EXPECT_TRUE(meta["io.modelcontextprotocol/clientCapabilities"].contains("elicitation"));
  fake->reply(fake->held[0]["id"], {{"resultType", "complete"}, {"content", json::array()}});
  settle();
  ASSERT_TRUE(*slot && **slot);
  EXPECT_FALSE((***slot).contains("resultType")) << "results come back as in either era";
}

TEST_F(ModernClient, AServerThatRefusesDiscoverIsInitialized) {
  auto c = connected("legacy");
  EXPECT_EQ(c->server().protocol_version, "2025-06-18");
  ASSERT_EQ(sent("server/discover").size(), 1u);
  EXPECT_EQ(sent("server/discover")[0]["params"]["_meta"][version_key], "2026-07-28");
  EXPECT_FALSE(sent("initialize").at(0)["params"].contains("_meta")) << "initialize carries no envelope";
  auto slot = call(c);
  ASSERT_EQ(fake->held.size(), 1u);
  EXPECT_FALSE(fake->held[0]["params"]["_meta"].contains(version_key));
  EXPECT_FALSE(c->restart_as_legacy());
}

TEST_F(ModernClient, AKnownLegacyServerIsNotProbed) {
  client_info info;
  info.era = protocol_era::legacy;
  auto c = connected("modern", info);
  EXPECT_TRUE(sent("server/discover").empty());
  EXPECT_EQ(c->server().protocol_version, "2025-06-18");
}

TEST_F(ModernClient, AProcessThatGivesNoAnswerToTheProbeIsToBeRestartedAsLegacy) {
  fake->era = "silent";
  fake->process = true;
  auto c = create_client(ctx.get_executor(), clock, fake, testing::test_limits());
  std::optional<result<server_info>> outcome;
  asio::co_spawn(
      ctx, [&]() -> asio::awaitable<void> { outcome = co_await c->connect(); }, asio::detached);
  settle();
  EXPECT_FALSE(outcome);
  clock.advance(testing::test_limits().request_timeout);
  settle();
  ASSERT_TRUE(outcome);
  ASSERT_FALSE(*outcome);
  EXPECT_TRUE(c->restart_as_legacy());
  EXPECT_TRUE(sent("initialize").empty()) << "not on a process the probe may have confused";
}

TEST_F(ModernClient, AnHttpServerThatGivesNoAnswerToTheProbeIsInitialized) {
  fake->era = "silent";  // pid() 0: no process whose state the probe could confuse
  auto c = create_client(ctx.get_executor(), clock, fake, testing::test_limits());
  std::optional<result<server_info>> outcome;
  asio::co_spawn(
      ctx, [&]() -> asio::awaitable<void> { outcome = co_await c->connect(); }, asio::detached);
  settle();
  clock.advance(testing::test_limits().request_timeout);
  settle();
  ASSERT_TRUE(outcome && *outcome) << (outcome ? outcome->error().describe() : "no outcome");
  EXPECT_EQ((*outcome)->protocol_version, "2025-06-18");
  EXPECT_FALSE(c->restart_as_legacy());
}

TEST_F(ModernClient, ListChangedComesOnASubscriptionStreamThatIsOpenedAgainWhenItEnds) {
  fake->capabilities = {{"tools", {{"listChanged", true}}}};
  auto c = connected("modern");
  int changed = 0;
  c->on_tools_changed([&changed] { ++changed; });
  settle();
  ASSERT_EQ(sent("subscriptions/listen").size(), 1u);
  const json listen = sent("subscriptions/listen")[0];
  EXPECT_EQ(listen["params"]["notifications"], json({{"toolsListChanged", true}}));
  EXPECT_EQ(listen["params"]["_meta"][version_key], "2026-07-28");
  EXPECT_EQ(c->in_flight(), 0u) << "the stream is no request in flight";

  fake->ask(
      nullptr, "notifications/subscriptions/acknowledged",
      {{"notifications", {{"toolsListChanged", true}}}, {"_meta", {{"io.modelcontextprotocol/subscriptionId", "1"}}}});
  fake->ask(nullptr, "notifications/tools/list_changed",
            {{"_meta", {{"io.modelcontextprotocol/subscriptionId", "1"}}}});
  settle();
  // The acknowledgement lists the tools again (a change may have come before
  // the stream was there), and so does the change.
  EXPECT_EQ(changed, 2);

  // The server ends the stream: a new one opens after a pause, and its
  // acknowledgement lists the tools again.
  fake->reply(listen["id"], {{"resultType", "complete"}});
  settle();
  EXPECT_EQ(sent("subscriptions/listen").size(), 1u);
  clock.advance(std::chrono::seconds(2));
  settle();
  ASSERT_EQ(sent("subscriptions/listen").size(), 2u);
  fake->ask(nullptr, "notifications/subscriptions/acknowledged",
            {{"notifications", {{"toolsListChanged", true}}},
             {"_meta", {{"io.modelcontextprotocol/subscriptionId", sent("subscriptions/listen")[1]["id"]}}}});
  settle();
  EXPECT_EQ(changed, 3);
  run(ctx, c->close());
}

TEST_F(ModernClient, AServerThatRefusesListenIsNotAskedAgain) {
  fake->capabilities = {{"tools", {{"listChanged", true}}}};
  auto c = connected("modern");
  settle();
  ASSERT_EQ(sent("subscriptions/listen").size(), 1u);
  fake->fail(sent("subscriptions/listen")[0]["id"], -32601, "Method not found");
  settle();
  clock.advance(std::chrono::minutes(2));
  settle();
  EXPECT_EQ(sent("subscriptions/listen").size(), 1u);
}

json ask_input(std::string state) {
  json schema = {{"type", "object"}, {"properties", {{"answer", {{"type", "string"}}}}}, {"required", {"answer"}}};
  return {
      {"resultType", "input_required"},
      {"inputRequests",
       {{"q1", {{"method", "elicitation/create"}, {"params", {{"message", "Which?"}, {"requestedSchema", schema}}}}}}},
      {"requestState", std::move(state)}};
}

TEST_F(ModernClient, InputRequiredGoesToWhoeverAnswersTheCallAndTheCallIsSentAgainWithTheAnswers) {
  auto c = connected("modern");
  std::vector<json> asked;
  call_deadline deadline;
  deadline.elicit = [&asked](json params) -> asio::awaitable<std::optional<json>> {
    asked.push_back(params);
    co_return json{{"action", "accept"}, {"content", {{"answer", "blue"}}}};
  };
  auto slot = call(c, deadline);
  fake->reply(fake->held.at(0)["id"], ask_input("state-1"));
  settle();
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0]["message"], "Which?");
  ASSERT_EQ(fake->held.size(), 2u);
  const json retry = fake->held[1]["params"];
  EXPECT_EQ(retry["name"], "ask");
  EXPECT_EQ(retry["arguments"], json({{"x", 1}}));
  EXPECT_EQ(retry["requestState"], "state-1");
  EXPECT_EQ(retry["inputResponses"]["q1"], json({{"action", "accept"}, {"content", {{"answer", "blue"}}}}));
  EXPECT_EQ(retry["_meta"][version_key], "2026-07-28");
  fake->reply(fake->held[1]["id"], {{"content", {{{"type", "text"}, {"text", "blue it is"}}}}});
  settle();
  ASSERT_TRUE(*slot && **slot);
  EXPECT_EQ((***slot)["content"][0]["text"], "blue it is");
}

TEST_F(ModernClient, InputRequiredWithNobodyToAskIsDeclinedAndEndlessRoundsEnd) {
  auto c = connected("modern");
  auto slot = call(c);
  for (int round = 0; round < 9; ++round) {  // the first answer, then 8 retries that ask again
    fake->reply(fake->held.back()["id"], ask_input("s" + std::to_string(round)));
    settle();
    if (round == 0) {
      EXPECT_EQ(fake->held.back()["params"]["inputResponses"]["q1"], json({{"action", "decline"}}))
          << "no default covers the required answer, and nobody stands behind the call";
    }
  }
  ASSERT_TRUE(*slot);
  ASSERT_FALSE(**slot);
  EXPECT_EQ((*slot)->error().code, harness::mcp::errc::bad_response);
  EXPECT_NE((*slot)->error().message.find("after 8 rounds"), std::string::npos);
}

json task_status(std::string status) {
  return {{"taskId", "t-1"}, {"status", std::move(status)}, {"pollIntervalMs", 100}};
}

TEST_F(ModernClient, ATaskIsPolledUntilItCompletesAndItsInputIsGivenOnce) {
  auto c = connected("modern");
  int asked = 0;
  call_deadline deadline;
  deadline.elicit = [&asked](json) -> asio::awaitable<std::optional<json>> {
    ++asked;
    co_return json{{"action", "accept"}, {"content", {{"answer", "yes"}}}};
  };
  auto slot = call(c, deadline);
  json created = task_status("working");
  created["resultType"] = "task";
  fake->reply(fake->held.at(0)["id"], created);
  settle();
  EXPECT_TRUE(sent("tasks/get").empty()) << "the first poll waits pollIntervalMs";
  clock.advance(std::chrono::milliseconds(100));
  settle();
  ASSERT_EQ(sent("tasks/get").size(), 1u);
  EXPECT_EQ(sent("tasks/get")[0]["params"]["taskId"], "t-1");
  json input = task_status("input_required");
  input["inputRequests"] = ask_input("")["inputRequests"];
  fake->reply(fake->held.back()["id"], input);
  settle();
  ASSERT_EQ(sent("tasks/update").size(), 1u);
  EXPECT_EQ(sent("tasks/update")[0]["params"]["inputResponses"]["q1"]["content"]["answer"], "yes");
  fake->reply(fake->held.back()["id"], json::object());
  settle();
  clock.advance(std::chrono::milliseconds(100));
  settle();
  fake->reply(fake->held.back()["id"], input);  // still asking the same: not answered twice
  settle();
  clock.advance(std::chrono::milliseconds(100));
  settle();
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(sent("tasks/update").size(), 1u);
  json done = task_status("completed");
  done["result"] = {{"content", {{{"type", "text"}, {"text", "done"}}}}};
  fake->reply(fake->held.back()["id"], done);
  settle();
  ASSERT_TRUE(*slot && **slot) << (*slot ? (*slot)->error().describe() : "still waiting");
  EXPECT_EQ((***slot)["content"][0]["text"], "done");
  EXPECT_TRUE(sent("tasks/cancel").empty());
}

TEST_F(ModernClient, ATaskThatOutlivesTheCallsDeadlineIsCancelled) {
  auto c = connected("modern");
  auto slot = call(c, call_deadline::until(clock.steady_now() + std::chrono::milliseconds(250)));
  json created = task_status("working");
  created["resultType"] = "task";
  fake->reply(fake->held.at(0)["id"], created);
  settle();
  for (int i = 0; i < 2; ++i) {
    clock.advance(std::chrono::milliseconds(100));
    settle();
    fake->reply(fake->held.back()["id"], task_status("working"));
    settle();
  }
  ASSERT_EQ(sent("tasks/cancel").size(), 1u) << "the next poll would come after the deadline";
  EXPECT_EQ(sent("tasks/cancel")[0]["params"]["taskId"], "t-1");
  fake->reply(fake->held.back()["id"], json::object());
  settle();
  ASSERT_TRUE(*slot);
  ASSERT_FALSE(**slot);
  EXPECT_EQ((*slot)->error().code, harness::mcp::errc::timeout);
}

// Over HTTP in 2026-07-28 a request is cancelled by closing its response:
// the transport does it, and no notifications/cancelled is sent. Where the
// transport cannot (stdio), the notification goes out.
TEST_F(ModernClient, AGivenUpCallIsClosedByTheTransportWhereItCanAndOtherwiseCancelledByNotification) {
  fake->closes_abandoned = true;
  auto c = connected("modern");
  auto slot = call(c, call_deadline::until(clock.steady_now() + std::chrono::milliseconds(100)));
  clock.advance(std::chrono::milliseconds(150));
  settle();
  ASSERT_TRUE(*slot);
  EXPECT_EQ((*slot)->error().code, harness::mcp::errc::timeout);
  ASSERT_EQ(fake->abandoned.size(), 1u);
  EXPECT_EQ(fake->abandoned[0], fake->held.at(0)["id"]);
  EXPECT_TRUE(sent("notifications/cancelled").empty());

  fake->closes_abandoned = false;
  auto second = call(c, call_deadline::until(clock.steady_now() + std::chrono::milliseconds(100)));
  clock.advance(std::chrono::milliseconds(150));
  settle();
  ASSERT_TRUE(*second);
  ASSERT_EQ(sent("notifications/cancelled").size(), 1u);
  EXPECT_EQ(sent("notifications/cancelled")[0]["params"]["requestId"], fake->held.at(1)["id"]);
}

TEST_F(ModernClient, AFailedTaskIsTheToolsErrorAndAHostileTaskIdIsRefused) {
  auto c = connected("modern");
  auto slot = call(c);
  json created = task_status("failed");
  created["resultType"] = "task";
  created["error"] = {{"code", -32603}, {"message", "the disk is full"}};
  fake->reply(fake->held.at(0)["id"], created);
  settle();
  ASSERT_TRUE(*slot);
  ASSERT_FALSE(**slot);
  EXPECT_EQ((*slot)->error().code, harness::mcp::errc::jsonrpc_error);
  EXPECT_EQ((*slot)->error().message, "-32603: the disk is full");

  auto second = call(c);
  json nameless = {{"resultType", "task"}, {"taskId", std::string(600, 'x')}, {"status", "working"}};
  fake->reply(fake->held.back()["id"], nameless);
  settle();
  ASSERT_TRUE(*second);
  ASSERT_FALSE(**second);
  EXPECT_EQ((*second)->error().code, harness::mcp::errc::bad_response);
}

}  // namespace
}  // namespace harness::mcp
