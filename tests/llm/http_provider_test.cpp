// The real providers and the real net transport talking HTTP over loopback
// to the fake LLM server (in-process, port chosen by the OS).
#include <gtest/gtest.h>

#include <boost/asio/ip/tcp.hpp>

#include "harness/llm/errors.hpp"
#include "harness/llm/provider.hpp"
#include "harness/net/http_client.hpp"
#include "llm/fake_llm_server.hpp"
#include "llm/test_support.hpp"
#include "record_replay.hpp"

namespace harness::llm {
namespace {

namespace asio = boost::asio;
using nlohmann::json;
using std::chrono::milliseconds;

const json code_reply = {
    {"reply",
     {{"text", "Listing the tools."},
      {"toolCalls", {{{"name", "execute_code"}, {"arguments", {{"code", "return await list_mcp_tools();"}}}}}},
      {"usage", {{"inputTokens", 321}, {"outputTokens", 45}}}}}};
const json final_reply = {
    {"reply", {{"text", "There are 3 files."}, {"usage", {{"inputTokens", 400}, {"outputTokens", 9}}}}}};

class LlmHttp : public ::testing::TestWithParam<std::string> {
 protected:
  llm_config config() const {
    auto c =
        test::test_config(GetParam(), GetParam() == "anthropic" ? fake.anthropic_base_url() : fake.openai_base_url());
    return c;
  }
  std::shared_ptr<llm_provider> provider(const llm_config& c, retry_observer observer = {}) {
    return c.provider == "anthropic" ? create_anthropic_provider(core::real_clock(), c, transport, std::move(observer))
                                     : create_openai_provider(core::real_clock(), c, transport, std::move(observer));
  }
  std::shared_ptr<llm_provider> provider() { return provider(config()); }
  std::string path() const { return GetParam() == "anthropic" ? "/v1/messages" : "/v1/chat/completions"; }

  testing::fake_llm_server fake;
  std::shared_ptr<http_transport> transport = create_net_transport(harness::net::start_curl_loop(), {});
};

TEST_P(LlmHttp, ToolCallRoundTripSpeaksTheWireFormat) {
  fake.require_api_key(config().api_key);
  fake.push(json::array({code_reply, final_reply}));
  auto p = provider();
  auto request = test::simple_request();
  auto turn = test::run_sync(p->complete(request));
  ASSERT_TRUE(turn) << turn.error().describe();
  EXPECT_EQ(turn->text, "Listing the tools.");
  ASSERT_EQ(turn->tool_calls.size(), 1u);
  EXPECT_EQ(turn->tool_calls[0].name, "execute_code");
  EXPECT_EQ(turn->tool_calls[0].arguments["code"], "return await list_mcp_tools();");
  EXPECT_FALSE(turn->tool_calls[0].id.empty());
  EXPECT_EQ(turn->usage.input_tokens, 321);
  EXPECT_EQ(turn->usage.output_tokens, 45);
  EXPECT_EQ(turn->stop_reason, GetParam() == "anthropic" ? "tool_use" : "tool_calls");
  EXPECT_EQ(turn->attempts, 1);

  // Second turn: the conversation carries the call and its result.
  message assistant{message_role::assistant, turn->text, turn->tool_calls, "", false, false};
  request.messages.push_back(assistant);
  request.messages.push_back({message_role::tool, "[\"fs__read_file\"]", {}, turn->tool_calls[0].id, false, false});
  auto done = test::run_sync(p->complete(request));
  ASSERT_TRUE(done) << done.error().describe();
  EXPECT_EQ(done->text, "There are 3 files.");
  EXPECT_TRUE(done->tool_calls.empty());

  auto sent = fake.requests();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].method, "POST");
  EXPECT_EQ(sent[0].path, path());
  EXPECT_EQ(sent[0].headers["content-type"], "application/json");
  EXPECT_EQ(sent[0].json["model"], config().model);
  const json& second = sent[1].json;
  if (GetParam() == "anthropic") {
    EXPECT_EQ(sent[0].headers["anthropic-version"], "2023-06-01");
    EXPECT_EQ(second["system"], "You write JavaScript.");
    EXPECT_EQ(second["messages"][1]["content"][1]["type"], "tool_use");
    EXPECT_EQ(second["messages"][2]["content"][0]["tool_use_id"], turn->tool_calls[0].id);
  } else {
    EXPECT_EQ(sent[0].json["tools"][0]["function"]["name"], "execute_code");
    EXPECT_EQ(second["messages"][2]["tool_calls"][0]["id"], turn->tool_calls[0].id);
    EXPECT_EQ(second["messages"][3]["role"], "tool");
  }
}

TEST_P(LlmHttp, RateLimitWithRetryAfterIsHonouredThenSucceeds) {
  fake.push(json::array({{{"error", {{"status", 429}}}, {"headers", {{"Retry-After", "1"}}}}, code_reply}));
  std::vector<milliseconds> waits;
  auto p = provider(config(), [&](int, milliseconds w, const harness::error& e) {
    waits.push_back(w);
    EXPECT_EQ(e.code, harness::llm::errc::rate_limited);
  });
  auto turn = test::run_sync(p->complete(test::simple_request()));
  ASSERT_TRUE(turn) << turn.error().describe();
  EXPECT_EQ(turn->attempts, 2);
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0], milliseconds(1000));
  EXPECT_EQ(fake.requests().size(), 2u);
}

TEST_P(LlmHttp, OverloadedAndServerErrorsAreRetried) {
  fake.push(json::array({{{"error", {{"status", 529}}}}, {{"error", {{"status", 502}}}}, code_reply}));
  auto turn = test::run_sync(provider()->complete(test::simple_request()));
  ASSERT_TRUE(turn) << turn.error().describe();
  EXPECT_EQ(turn->attempts, 3);
}

TEST_P(LlmHttp, WrongKeyIsUnauthorizedWithoutRetryAndWithoutTheKey) {
  fake.require_api_key("the-right-key");
  fake.push(code_reply);
  auto turn = test::run_sync(provider()->complete(test::simple_request()));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().code, harness::llm::errc::unauthorized);
  EXPECT_EQ(turn.error().describe().find(config().api_key), std::string::npos) << turn.error().describe();
  EXPECT_EQ(fake.requests().size(), 1u);
  EXPECT_EQ(fake.steps_left(), 1u);
}

TEST_P(LlmHttp, UnknownModelIsNotFoundWithAHintAboutTheBaseUrl) {
  fake.push({{"error", {{"status", 404}, {"message", "model: claude-nope"}}}});
  auto turn = test::run_sync(provider()->complete(test::simple_request()));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().code, harness::llm::errc::not_found);
  EXPECT_NE(turn.error().message.find("model: claude-nope"), std::string::npos);
  EXPECT_NE(turn.error().hint.find("LLM_BASE_URL"), std::string::npos);
}

TEST_P(LlmHttp, ContextOverflowIsRequestTooLarge) {
  fake.push({{"error", {{"status", 400}, {"message", "prompt is too long: 210000 tokens > 200000 maximum"}}}});
  auto turn = test::run_sync(provider()->complete(test::simple_request()));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().code, harness::llm::errc::request_too_large);
  EXPECT_EQ(fake.requests().size(), 1u);
}

TEST_P(LlmHttp, DroppedAndTruncatedAnswersAreRetried) {
  fake.push(json::array({{{"drop", true}}, {{"truncate", true}}, code_reply}));
  auto turn = test::run_sync(provider()->complete(test::simple_request()));
  ASSERT_TRUE(turn) << turn.error().describe();
  EXPECT_EQ(turn->attempts, 3);
  EXPECT_EQ(fake.requests().size(), 3u);
}

TEST_P(LlmHttp, ConnectionErrorsExhaustRetries) {
  fake.push(json::array({{{"drop", true}}, {{"drop", true}}, {{"drop", true}}}));
  auto turn = test::run_sync(provider()->complete(test::simple_request()));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().code, harness::llm::errc::connection_failed);
  EXPECT_EQ(fake.requests().size(), 3u);
}

TEST_P(LlmHttp, MalformedJsonIsABadResponse) {
  fake.push({{"malformed", true}});
  auto turn = test::run_sync(provider()->complete(test::simple_request()));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().code, harness::llm::errc::bad_response);
}

TEST_P(LlmHttp, SlowAnswerTimesOut) {
  auto c = config();
  c.timeout = milliseconds(200);
  c.retry.max_retries = 1;
  fake.push(json::array(
      {{{"delayMs", 3000}, {"reply", {{"text", "late"}}}}, {{"delayMs", 3000}, {"reply", {{"text", "late"}}}}}));
  auto turn = test::run_sync(provider(c)->complete(test::simple_request()));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().code, harness::llm::errc::timeout);
  EXPECT_NE(turn.error().hint.find("LLM_TIMEOUT_MS"), std::string::npos);
}

TEST_P(LlmHttp, CancellationAbortsAnInFlightTransfer) {
  fake.push({{"delayMs", 20000}, {"reply", {{"text", "too late"}}}});
  auto p = provider();
  // Cancel once the fake holds the request, as the agent would when its task is cancelled.
  auto out = test::complete_then_cancel(*p, test::simple_request(), [&] { return !fake.requests().empty(); });
  ASSERT_TRUE(out);
  ASSERT_FALSE(*out);
  EXPECT_EQ(out->error().code, harness::core::errc::cancelled);
  EXPECT_EQ(fake.requests().size(), 1u);
}

TEST_P(LlmHttp, TextModeReadsTheFencedBlockAndSendsNoTools) {
  auto c = config();
  c.tools = tool_mode::text;
  fake.push({{"reply", {{"text", "Sure.\n```javascript\nreturn 6 * 7;\n```"}}}});
  fake.push(final_reply);
  auto p = provider(c);
  auto request = test::simple_request();
  auto turn = test::run_sync(p->complete(request));
  ASSERT_TRUE(turn) << turn.error().describe();
  ASSERT_EQ(turn->tool_calls.size(), 1u);
  EXPECT_TRUE(turn->tool_calls[0].from_text);
  EXPECT_EQ(turn->tool_calls[0].arguments["code"], "return 6 * 7;");
  request.messages.push_back({message_role::assistant, turn->text, turn->tool_calls, "", false, false});
  request.messages.push_back({message_role::tool, "42", {}, turn->tool_calls[0].id, false, true});
  ASSERT_TRUE(test::run_sync(p->complete(request)));
  auto sent = fake.requests();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_FALSE(sent[0].json.contains("tools"));
  EXPECT_NE(sent[1].json["messages"].dump().find("Result of the code block:\\n42"), std::string::npos);
}

TEST_P(LlmHttp, RecordedSessionReplaysTheSameTurns) {
  auto file = (std::filesystem::temp_directory_path() / ("llm-http-" + GetParam() + ".jsonl")).string();
  std::filesystem::remove(file);
  auto c = config();
  c.record_file = file;
  fake.push(json::array({code_reply, final_reply}));
  auto recorder = create_llm_provider(core::real_clock(), c, transport);
  ASSERT_TRUE(recorder) << recorder.error().describe();
  auto first = test::run_sync((*recorder)->complete(test::simple_request()));
  auto second = test::run_sync((*recorder)->complete(test::simple_request()));
  ASSERT_TRUE(first && second);

  llm_config replay_config;
  replay_config.provider = "replay";
  replay_config.replay_file = file;
  auto replay = create_llm_provider(core::real_clock(), replay_config, nullptr);
  ASSERT_TRUE(replay) << replay.error().describe();
  auto again = test::run_sync((*replay)->complete(test::simple_request()));
  ASSERT_TRUE(again);
  EXPECT_EQ(to_json(*again), to_json(*first));
  EXPECT_EQ(to_json(*test::run_sync((*replay)->complete(test::simple_request()))), to_json(*second));
  EXPECT_EQ(fake.requests().size(), 2u);  // replay sent nothing
  std::filesystem::remove(file);
}

INSTANTIATE_TEST_SUITE_P(LlmProviders, LlmHttp, ::testing::Values("openai", "anthropic"));

TEST(LlmHttpTransport, RefusedConnectionIsAConnectionError) {
  unsigned short port = 0;
  {
    asio::io_context ioc;
    asio::ip::tcp::acceptor a(ioc, {asio::ip::make_address("127.0.0.1"), 0});
    port = a.local_endpoint().port();
  }  // closed: nothing listens there now
  auto c = test::test_config("openai", "http://127.0.0.1:" + std::to_string(port) + "/v1");
  c.retry.max_retries = 1;
  auto turn = test::run_sync(
      create_openai_provider(core::real_clock(), c, create_net_transport(harness::net::start_curl_loop(), {}))
          ->complete(test::simple_request()));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().code, harness::llm::errc::connection_failed);
  EXPECT_NE(turn.error().message.find("127.0.0.1"), std::string::npos);
}

TEST(LlmHttpTransport, ConcurrentCallsBeyondTheLimitQueueAndPastTheQueueAreBusy) {
  testing::fake_llm_server fake;
  for (int i = 0; i < 6; ++i) fake.push({{"delayMs", 1000}, {"reply", {{"text", "ok"}}}});
  net_transport_options options;
  options.max_concurrent = 2;
  options.max_queued = 2;
  auto c = test::test_config("openai", fake.openai_base_url());
  c.retry.max_retries = 0;
  auto p =
      create_openai_provider(core::real_clock(), c, create_net_transport(harness::net::start_curl_loop(), options));
  asio::io_context ioc;
  std::vector<result<llm_turn>> results;
  for (int i = 0; i < 6; ++i) {
    asio::co_spawn(
        ioc, [&]() -> asio::awaitable<void> { results.push_back(co_await p->complete(test::simple_request())); },
        asio::detached);
  }
  ioc.run();
  ASSERT_EQ(results.size(), 6u);
  int ok = 0, busy = 0;
  for (const auto& r : results) {
    if (r)
      ++ok;
    else if (r.error().code == harness::llm::errc::busy)
      ++busy;
  }
  // All six are submitted long before a transfer can finish (each answer takes
  // a second): at most 2 running + 2 queued are accepted, the rest are refused at once.
  EXPECT_EQ(ok + busy, 6);
  EXPECT_GE(busy, 2);
  EXPECT_GE(ok, 2);
}

}  // namespace
}  // namespace harness::llm
