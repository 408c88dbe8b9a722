// The JSON-RPC client against an in-memory fake transport and the fake clock:
// reply routing by id, late replies, deadlines, cancellation, session expiry
// and connection loss, with no process and no real time.
#include <gtest/gtest.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

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

struct FakeClient : ::testing::Test {
  asio::io_context ctx;
  harness::testing::fake_clock clock;
  std::shared_ptr<fake_transport> fake = std::make_shared<fake_transport>(ctx);
  std::shared_ptr<client> c = create_client(ctx.get_executor(), clock, fake, testing::test_limits());
  void SetUp() override {
    auto info = run(ctx, c->connect());
    ASSERT_TRUE(info) << info.error().describe();
    ASSERT_EQ(fake->version, "2025-06-18");
    ASSERT_EQ(fake->sent.at(0)["method"], "server/discover");  // answered as a 2025 server does: -32601
    ASSERT_EQ(fake->sent.at(1)["method"], "initialize");
    ASSERT_EQ(fake->sent.at(2)["method"], "notifications/initialized");
  }
  // Starts a request in the background; its outcome lands in the returned slot.
  std::shared_ptr<std::optional<result<json>>> start(std::string method,
                                                     std::optional<std::chrono::milliseconds> timeout = {},
                                                     bool run_now = true) {
    auto slot = std::make_shared<std::optional<result<json>>>();
    asio::co_spawn(
        ctx,
        [this, slot, method, timeout]() -> asio::awaitable<void> {
          *slot = co_await c->request(method, json::object(), timeout);
        },
        asio::detached);
    if (run_now) settle();
    return slot;
  }
  // Runs what is ready; restart() first because an io_context that ran out of work stays stopped.
  void settle() {
    ctx.restart();
    ctx.poll();
  }
};

// The requested schema of the conformance suite's defaults scenario, and one with a required field without default.
const json defaults_schema = {
    {"type", "object"},
    {"properties",
     {{"name", {{"type", "string"}, {"default", "John Doe"}}}, {"age", {{"type", "integer"}, {"default", 30}}}}},
    {"required", json::array({"name"})}};
const json open_schema = {
    {"type", "object"},
    {"properties", {{"name", {{"type", "string"}}}, {"age", {{"type", "integer"}, {"default", 30}}}}},
    {"required", json::array({"name"})}};

TEST_F(FakeClient, ElicitationIsDeclaredAndNobodyToAskMeansDefaultsOrDecline) {
  EXPECT_EQ(fake->sent.at(1)["params"]["capabilities"]["elicitation"], json::object());
  fake->ask("e1", "elicitation/create", {{"message", "fill in"}, {"requestedSchema", defaults_schema}});
  fake->ask("e2", "elicitation/create", {{"message", "fill in"}, {"requestedSchema", open_schema}});
  fake->ask("e3", "elicitation/create", {{"message", "no schema"}});
  settle();
  EXPECT_EQ(fake->answer_to("e1")["result"],
            (json{{"action", "accept"}, {"content", {{"name", "John Doe"}, {"age", 30}}}}));
  EXPECT_EQ(fake->answer_to("e2")["result"], (json{{"action", "decline"}}));
  EXPECT_EQ(fake->answer_to("e3")["error"]["code"], -32602);
}

TEST_F(FakeClient, AnElicitationGoesToTheOneCallThatCanAskAndItsWaitDoesNotCount) {
  std::vector<json> asked;
  // The person answers when the test says so: a timer that only a cancel ends.
  asio::steady_timer person(ctx, asio::steady_timer::time_point::max());
  call_deadline d(std::chrono::milliseconds(50));
  d.elicit = [&](json params) -> asio::awaitable<std::optional<json>> {
    asked.push_back(params);
    co_await person.async_wait(asio::as_tuple(asio::use_awaitable));
    co_return json{{"action", "accept"}, {"content", {{"name", "Ann"}}}};
  };
  auto slot = std::make_shared<std::optional<result<json>>>();
  asio::co_spawn(
      ctx, [&, slot]() -> asio::awaitable<void> { *slot = co_await c->call_tool("t", json::object(), d); },
      asio::detached);
  settle();
  ASSERT_EQ(fake->held.size(), 1u);
  fake->ask("e1", "elicitation/create", {{"message", "who?"}, {"requestedSchema", open_schema}});
  // Longer than the call's own timeout: it must still wait while the person does.
  settle();
  clock.advance(std::chrono::milliseconds(150));
  settle();
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0]["message"], "who?");
  EXPECT_FALSE(*slot) << "the call timed out while a person answered";
  person.cancel();
  settle();
  EXPECT_EQ(fake->answer_to("e1")["result"], (json{{"action", "accept"}, {"content", {{"name", "Ann"}}}}));
  fake->reply(fake->held[0]["id"], {{"content", json::array()}});
  settle();
  ASSERT_TRUE(*slot && **slot) << (*slot ? (*slot)->error().describe() : "no outcome");
  // Two calls that could ask: which one the server means cannot be told, so nobody is asked.
  call_deadline quick(std::chrono::milliseconds(5000));
  quick.elicit = d.elicit;
  auto a = std::make_shared<std::optional<result<json>>>();
  auto b = std::make_shared<std::optional<result<json>>>();
  asio::co_spawn(
      ctx, [&, a]() -> asio::awaitable<void> { *a = co_await c->call_tool("t", json::object(), quick); },
      asio::detached);
  asio::co_spawn(
      ctx, [&, b]() -> asio::awaitable<void> { *b = co_await c->call_tool("t", json::object(), quick); },
      asio::detached);
  settle();
  fake->ask("e2", "elicitation/create", {{"message", "who?"}, {"requestedSchema", open_schema}});
  settle();
  EXPECT_EQ(asked.size(), 1u);
  EXPECT_EQ(fake->answer_to("e2")["result"], (json{{"action", "decline"}}));
  for (std::size_t i = 1; i < fake->held.size(); ++i) fake->reply(fake->held[i]["id"], json::object());
  settle();
}

TEST_F(FakeClient, RepliesInAnyOrderReachTheirOwnCallers) {
  auto first = start("a");
  auto second = start("b");
  ASSERT_EQ(fake->held.size(), 2u);
  EXPECT_NE(fake->held[0]["id"], fake->held[1]["id"]);
  EXPECT_EQ(fake->held[0]["params"]["_meta"]["progressToken"], fake->held[0]["id"]);
  fake->reply(fake->held[1]["id"], {{"who", "b"}});
  fake->reply(fake->held[0]["id"], {{"who", "a"}});
  settle();
  ASSERT_TRUE(*first && **first);
  ASSERT_TRUE(*second && **second);
  EXPECT_EQ((***first)["who"], "a");
  EXPECT_EQ((***second)["who"], "b");
  EXPECT_EQ(c->in_flight(), 0u);
}

TEST_F(FakeClient, TimeoutSendsCancelledAndALateReplyIsDropped) {
  auto slot = start("slow", std::chrono::milliseconds(20));
  clock.advance(std::chrono::milliseconds(19));
  settle();
  EXPECT_FALSE(*slot);
  clock.advance(std::chrono::milliseconds(1));
  settle();
  ASSERT_TRUE(*slot);
  const auto& outcome = **slot;
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, harness::mcp::errc::timeout);
  const json id = fake->held.at(0)["id"];
  EXPECT_EQ(fake->sent.back()["method"], "notifications/cancelled");
  EXPECT_EQ(fake->sent.back()["params"]["requestId"], id);
  fake->reply(id, {{"late", true}});
  settle();
  EXPECT_EQ(c->in_flight(), 0u);
  auto next = start("next");
  fake->reply(fake->held.back()["id"], {{"ok", true}});
  settle();
  ASSERT_TRUE(*next && **next);
  EXPECT_EQ((***next)["ok"], true);
}

TEST_F(FakeClient, ProgressGivesTheRequestItsTimeoutAgain) {
  auto slot = start("slow", std::chrono::milliseconds(1000));
  const json token = fake->held.at(0)["params"]["_meta"]["progressToken"];
  auto progress = [&] {
    fake->ask(nullptr, "notifications/progress", {{"progressToken", token}, {"progress", 1}});
    settle();
  };
  // Each progress notification gives the request its timeout again.
  for (int i = 0; i < 3; ++i) {
    clock.advance(std::chrono::milliseconds(900));
    settle();
    progress();
  }
  EXPECT_FALSE(*slot) << "progress came within each timeout";
  clock.advance(std::chrono::milliseconds(1000));
  settle();
  ASSERT_TRUE(*slot);
  EXPECT_EQ((*slot)->error().code, harness::mcp::errc::timeout);
}

TEST_F(FakeClient, ExpiredSessionInitializesAgainAndRetriesOnce) {
  fake->expire_next = 1;
  auto outcome = start("tools/list");
  settle();
  EXPECT_EQ(fake->resets, 1);
  EXPECT_EQ(fake->initializes, 2);
  ASSERT_EQ(fake->held.size(), 1u);
  fake->reply(fake->held[0]["id"], {{"tools", json::array()}});
  settle();
  ASSERT_TRUE(*outcome && **outcome);
}

TEST_F(FakeClient, RequestsThatFindTheSessionExpiredShareOneNewSession) {
  fake->expire_next = 2;
  auto a = start("a", {}, false);  // both are sent before either learns the session is gone
  auto b = start("b", {}, false);
  settle();
  EXPECT_EQ(fake->initializes, 2);  // connect + one re-initialize, not one per request
  ASSERT_EQ(fake->held.size(), 2u);
  for (const auto& held : fake->held) fake->reply(held["id"], {{"ok", true}});
  settle();
  ASSERT_TRUE(*a && **a);
  ASSERT_TRUE(*b && **b);
}

TEST_F(FakeClient, ConnectionLossFailsRequestsInFlight) {
  std::optional<error> lost;
  c->on_closed([&](error e) { lost = e; });
  auto outcome = start("work");
  fake->lose(make_error(harness::mcp::errc::connection_lost, "server went away"));
  settle();
  ASSERT_TRUE(*outcome);
  ASSERT_FALSE(**outcome);
  EXPECT_EQ((**outcome).error().message, "server went away");
  ASSERT_TRUE(lost);
  EXPECT_FALSE(c->connected());
  auto after = run(ctx, c->request("again", json::object()));
  ASSERT_FALSE(after);
  EXPECT_EQ(after.error().code, harness::mcp::errc::not_connected);
}

message_identity looks(std::optional<json> id, bool complete, bool has_method = false) {
  message_identity identity;
  identity.looks_like_message = true;
  identity.id = std::move(id);
  identity.complete = complete;
  identity.has_method = has_method;
  return identity;
}

TEST_F(FakeClient, UnreadableAnswerFailsOnlyTheRequestItsIdNames) {
  auto a = start("a");
  auto b = start("b");
  fake->unreadable(looks(fake->held[0]["id"], false));
  settle();
  ASSERT_TRUE(*a);
  ASSERT_FALSE(**a);
  EXPECT_EQ((**a).error().code, harness::mcp::errc::message_too_large);
  EXPECT_EQ((**a).error().message, "a on fake got no usable answer: it was too big");
  EXPECT_EQ((**a).error().hint, "raise it");
  EXPECT_FALSE(*b);
  fake->reply(fake->held[1]["id"], {{"ok", true}});
  settle();
  ASSERT_TRUE(*b && **b);
}

TEST_F(FakeClient, UnreadableRequestFromTheServerFailsNothingAndIsAnswered) {
  auto a = start("a");
  fake->unreadable(looks(json(77), false, true));
  settle();
  EXPECT_FALSE(*a);
  EXPECT_EQ(fake->sent.back()["id"], 77);
  EXPECT_EQ(fake->sent.back()["error"]["code"], -32600);
  EXPECT_EQ(fake->sent.back()["error"]["message"], "it was too big");
}

TEST_F(FakeClient, UnreadableWholeMessageWithoutIdOrStrayOutputFailsNothing) {
  auto a = start("a");
  fake->unreadable(looks(std::nullopt, true));  // whole, and no id: it answers nothing
  fake->unreadable(message_identity{});         // stray output, not a message
  fake->unreadable(looks(json(12345), true));   // an id nothing waits for
  settle();
  EXPECT_FALSE(*a);
  EXPECT_EQ(c->in_flight(), 1u);
}

TEST_F(FakeClient, UnreadableBrokenMessageWithoutIdFailsEveryRequestInFlight) {
  auto a = start("a");
  auto b = start("b");
  fake->unreadable(looks(std::nullopt, false));
  settle();
  for (const auto& slot : {a, b}) {
    ASSERT_TRUE(*slot);
    ASSERT_FALSE(**slot);
    EXPECT_NE((**slot).error().message.find("each of the 2 requests in flight"), std::string::npos)
        << (**slot).error().message;
  }
  EXPECT_EQ(c->in_flight(), 0u);
}

}  // namespace
}  // namespace harness::mcp
