// The client and registry against tests/mcp/hostile_server.js, a real child
// process whose answers are too large, not JSON or cut short by its death, and
// whose tool lists are huge or badly named. The request timeout is 10 minutes:
// a call that waited for its deadline instead of failing at once would hang the
// test until ctest's timeout rather than pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "client.hpp"
#include "harness/core/when_all.hpp"
#include "harness/mcp/errors.hpp"
#include "harness/mcp/tool_registry.hpp"
#include "mcp_test_support.hpp"

namespace harness::mcp {
namespace {

namespace asio = boost::asio;
using nlohmann::json;
using testing::contains;
using testing::patient_limits;
using testing::run;

server_config hostile_server(const std::string& mode) {
  auto config = testing::node_server("hostile", {testing::source_dir() + "/tests/mcp/hostile_server.js", mode});
  return config;
}

struct HostileServer : ::testing::Test {
  asio::io_context ctx;
  std::shared_ptr<client> c;
  void SetUp() override {
    auto limits = patient_limits();
    c = create_client(ctx.get_executor(), core::real_clock(),
                      create_stdio_transport(ctx.get_executor(), core::real_clock(), hostile_server("normal"), limits),
                      limits);
    auto info = run(ctx, c->connect());
    ASSERT_TRUE(info) << info.error().describe();
  }
  void TearDown() override { run(ctx, c->close()); }

  result<json> call(const std::string& tool, json args = json::object()) {
    return run(ctx, c->call_tool(tool, std::move(args)));
  }
};

asio::awaitable<void> echo_into(std::shared_ptr<client> cl, std::string text, result<json>& out) {
  json args{{"text", std::move(text)}};  // named: no braced list in co_await (GCC 12)
  out = co_await cl->call_tool("echo", std::move(args));
}

// `count` echo calls at once, of `bytes` bytes each (all `first`, then the
// next character, ...); each answer must come back whole, to its own call.
void expect_echoes_at_once(asio::io_context& ctx, const std::shared_ptr<client>& c, std::size_t count,
                           std::size_t bytes, char first) {
  auto text = [&](std::size_t i) { return std::string(bytes, static_cast<char>(first + i)); };
  std::vector<result<json>> answers(count, make_error(core::errc::internal_error, "not answered"));
  auto all = [&]() -> asio::awaitable<void> {
    std::vector<asio::awaitable<void>> calls;
    for (std::size_t i = 0; i < count; ++i) calls.push_back(echo_into(c, text(i), answers[i]));
    co_await core::when_all(std::move(calls));
  };
  run(ctx, all());
  for (std::size_t i = 0; i < count; ++i) {
    ASSERT_TRUE(answers[i]) << answers[i].error().describe();
    EXPECT_EQ((*answers[i])["content"][0]["text"], text(i));
  }
}

// A request line far larger than the pipe's buffer (64 KiB) goes out in
// parts: what fits at once, then the rest as the server reads. Several at
// once keep their order and their bytes.
TEST_F(HostileServer, RequestsLargerThanThePipeAreWrittenWhole) {
  const std::string big(512 * 1024, 'a');
  auto first = call("echo", {{"text", big}});
  ASSERT_TRUE(first) << first.error().describe();
  EXPECT_EQ((*first)["content"][0]["text"].get<std::string>().size(), big.size());
  expect_echoes_at_once(ctx, c, 3, 300 * 1024, 'b');
}

// Many requests at once, more than the pipe holds: those that queue behind a
// partial write go out joined in one write, each still whole and in order.
TEST_F(HostileServer, QueuedRequestsAreJoinedWithoutLosingABoundary) {
  expect_echoes_at_once(ctx, c, 12, 20 * 1024, 'a');
}

TEST_F(HostileServer, OversizedAnswerFailsItsCallAtOnceNamingSizeLimitAndSetting) {
  for (bool id_first : {false, true}) {
    auto outcome = call("huge", {{"bytes", 2 * 1024 * 1024}, {"id_first", id_first}});
    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().code, harness::mcp::errc::message_too_large);
    const auto& message = outcome.error().message;
    EXPECT_TRUE(contains(message, "tools/call")) << message;
    EXPECT_TRUE(contains(message, "over the limit of 1048576 bytes")) << message;
    EXPECT_TRUE(contains(message, "MCP_MAX_MESSAGE_BYTES")) << message;
    EXPECT_TRUE(contains(outcome.error().hint, "raise MCP_MAX_MESSAGE_BYTES")) << outcome.error().hint;
    EXPECT_EQ(c->in_flight(), 0u);
  }
  auto echoed = call("echo", {{"text", "still fine"}});  // the stream stays in step
  ASSERT_TRUE(echoed) << echoed.error().describe();
}

TEST_F(HostileServer, AnswerThatIsNotJsonFailsItsCallAtOnce) {
  auto outcome = call("not_json");
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, harness::mcp::errc::bad_response);
  EXPECT_TRUE(contains(outcome.error().message, "not valid JSON")) << outcome.error().message;
  EXPECT_TRUE(contains(outcome.error().message, "NaN")) << outcome.error().message;  // how it starts
  ASSERT_TRUE(call("echo", {{"text", "x"}}));
}

// 200,000 nested arrays: refused while parsing, before anything could copy or
// print the value (each of which recurses once per level).
TEST_F(HostileServer, AnswerNestedTooDeepFailsItsCallAndNothingElse) {
  auto outcome = call("deep");
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, harness::mcp::errc::bad_response);
  EXPECT_TRUE(contains(outcome.error().message, "nests deeper than 256 levels")) << outcome.error().message;
  EXPECT_EQ(c->in_flight(), 0u);
  // 250 levels are an answer like any other.
  auto shallow = call("deep", {{"levels", 250}});
  ASSERT_TRUE(shallow) << shallow.error().describe();
  EXPECT_TRUE(call("echo", {{"text", "still fine"}}));
}

// A text item that holds such a document stays text: it is not taken for JSON.
TEST_F(HostileServer, TextThatNestsTooDeepStaysText) {
  auto outcome = call("deep_text");
  ASSERT_TRUE(outcome) << outcome.error().describe();
  EXPECT_EQ((*outcome)["content"][0]["text"].get<std::string>().size(), 400000u);
}

TEST_F(HostileServer, AnswerCutShortByTheServersDeathSaysSo) {
  auto outcome = call("half_then_exit");
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, harness::mcp::errc::connection_lost);
  const auto& message = outcome.error().message;
  EXPECT_TRUE(contains(message, "exit status 5")) << message;
  EXPECT_TRUE(contains(message, "dying in the middle of an answer")) << message;
  EXPECT_TRUE(contains(message, "cut short after")) << message;
  EXPECT_FALSE(c->connected());
}

TEST_F(HostileServer, ServerThatExitsWhileItsHelperHoldsStdoutIsNoticed) {
  auto outcome = call("half_then_exit_keep_stdout");
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, harness::mcp::errc::connection_lost);
  EXPECT_TRUE(contains(outcome.error().message, "exit status 5")) << outcome.error().message;
  EXPECT_TRUE(contains(outcome.error().message, "cut short after")) << outcome.error().message;
  // The helper, still in the server's process group, was killed with it.
  const auto pid_at = outcome.error().message.find("helper pid ");
  ASSERT_NE(pid_at, std::string::npos) << outcome.error().message;
  const int helper = std::stoi(outcome.error().message.substr(pid_at + 11));
  EXPECT_TRUE(testing::wait_until_gone(ctx, helper)) << "helper " << helper << " outlived the server";
}

TEST_F(HostileServer, BrokenLineWithoutIdFailsEveryRequestInFlight) {
  auto outcomes = run(ctx, [&]() -> asio::awaitable<std::vector<result<json>>> {
    auto hanging = std::make_shared<std::optional<result<json>>>();
    asio::steady_timer done(ctx, asio::steady_timer::time_point::max());
    asio::co_spawn(
        ctx,
        [&, hanging]() -> asio::awaitable<void> {
          *hanging = co_await c->call_tool("hang", json::object());
          done.cancel();
        },
        asio::detached);
    auto cut = co_await c->call_tool("no_id_cut", json::object());
    if (!*hanging) co_await done.async_wait(asio::as_tuple(asio::use_awaitable));
    co_return std::vector<result<json>>{std::move(cut), std::move(**hanging)};
  }());
  for (const auto& outcome : outcomes) {
    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().code, harness::mcp::errc::bad_response);
    EXPECT_TRUE(contains(outcome.error().message, "each of the 2 requests in flight")) << outcome.error().message;
  }
  ASSERT_TRUE(call("echo", {{"text", "x"}}));
}

TEST_F(HostileServer, OversizedNotificationFailsNothing) {
  auto outcome = call("huge_notification");
  ASSERT_TRUE(outcome) << outcome.error().describe();
  EXPECT_EQ((*outcome)["content"][0]["text"], "after the notification");
}

TEST_F(HostileServer, OversizedRequestFromTheServerStillGetsAnAnswer) {
  auto outcome = call("huge_request");
  ASSERT_TRUE(outcome) << outcome.error().describe();
  const auto& answer = (*outcome)["structuredContent"];
  EXPECT_EQ(answer["error"]["code"], -32600) << answer.dump();
  EXPECT_TRUE(contains(answer["error"]["message"].get<std::string>(), "MCP_MAX_MESSAGE_BYTES")) << answer.dump();
}

mcp_config registry_config(const std::string& mode) {
  mcp_config config;
  config.servers = {hostile_server(mode)};
  config.limits = patient_limits();
  return config;
}

TEST(HostileToolLists, ToolsPastTheLimitAreDroppedAndCounted) {
  asio::io_context ctx;
  auto config = registry_config("many_tools");
  ASSERT_EQ(config.limits.max_tools_per_server, 1000u);
  auto registry = create_tool_registry(ctx.get_executor(), core::real_clock(), config);
  run(ctx, registry->start());
  EXPECT_EQ(registry->list("").size(), 1000u);
  EXPECT_TRUE(registry->details("hostile__t999"));
  EXPECT_FALSE(registry->details("hostile__t1000"));
  const json server = registry->health_sources().at(0)->check().detail;
  EXPECT_EQ(server["state"], "ready");
  EXPECT_EQ(server["tools"], 1000);
  EXPECT_EQ(server["droppedTools"]["count"], 4006) << server.dump();
  EXPECT_EQ(server["droppedTools"]["overLimit"], 4006);
  EXPECT_EQ(server["droppedTools"]["limit"], 1000);
  run(ctx, registry->stop());
}

TEST(HostileToolLists, InvalidAndDuplicateNamesAreDroppedAndReported) {
  asio::io_context ctx;
  auto registry = create_tool_registry(ctx.get_executor(), core::real_clock(), registry_config("bad_names"));
  run(ctx, registry->start());
  std::vector<std::string> names;
  for (const auto& tool : registry->list("")) names.push_back(tool["name"]);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"hostile__echo", "hostile__good.name-1_X"}));
  EXPECT_EQ((*registry->details("hostile__good.name-1_X"))["description"], "first");
  EXPECT_FALSE(registry->details("hostile__"));

  const json dropped = registry->health_sources().at(0)->check().detail["droppedTools"];
  EXPECT_EQ(dropped["count"], 10) << dropped.dump();
  EXPECT_EQ(dropped["invalidOrDuplicate"], 10);
  EXPECT_FALSE(dropped.contains("overLimit"));
  std::map<std::string, std::string> reasons;  // by name; the tool without a name shows as ""
  for (const auto& tool : dropped["rejected"]) {
    if (tool["reason"] != "no name") reasons[tool["name"]] = tool["reason"];
  }
  EXPECT_EQ(dropped["rejected"][9], json({{"name", ""}, {"reason", "no name"}}));
  EXPECT_EQ(reasons[""], "empty name");
  EXPECT_TRUE(contains(reasons["a/b"], "'/'")) << reasons["a/b"];
  EXPECT_EQ(reasons[".."], "name contains \"..\"");
  EXPECT_EQ(reasons["x..y"], "name contains \"..\"");
  EXPECT_TRUE(contains(reasons["sp ace"], "' '")) << reasons["sp ace"];
  EXPECT_TRUE(contains(reasons[std::string(64, 'n') + "..."], "129 characters"));
  EXPECT_TRUE(contains(reasons["caf??"], "byte 0xc3")) << dropped.dump();
  EXPECT_EQ(reasons["good.name-1_X"], "duplicate of an earlier tool");
  EXPECT_EQ(reasons["5"], "name is not a string");
  run(ctx, registry->stop());
}

}  // namespace
}  // namespace harness::mcp
