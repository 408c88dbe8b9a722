// The retry loop, error mapping, text fallback and cancellation of the HTTP
// providers, against the scripted (fault-injecting) transport.
#include <gtest/gtest.h>

#include "harness/llm/errors.hpp"
#include "harness/llm/provider.hpp"
#include "llm/scripted_transport.hpp"
#include "llm/test_support.hpp"

namespace harness::llm {
namespace {

using std::chrono::milliseconds;

const std::string ok_body = R"({"choices":[{"message":{"role":"assistant","content":"hi","tool_calls":[
  {"id":"c1","type":"function","function":{"name":"execute_code","arguments":"{\"code\":\"return 1\"}"}}]},
  "finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":2}})";

struct retry_log {
  std::vector<std::pair<int, milliseconds>> waits;
  retry_observer observer() {
    return [this](int attempt, milliseconds wait, const harness::error&) { waits.emplace_back(attempt, wait); };
  }
};

TEST(LlmHttpProvider, RetriesConnectionErrorsAndServerErrorsThenSucceeds) {
  auto t = std::make_shared<test::scripted_transport>();
  t->push(make_error(harness::llm::errc::connection_failed, "refused"));
  t->push_json(503, R"({"error":{"message":"busy"}})");
  t->push_json(200, ok_body);
  retry_log log;
  auto p = create_openai_provider(core::real_clock(), test::test_config("openai", "http://h/v1"), t, log.observer());
  auto turn = test::run_sync(p->complete(test::simple_request()));
  ASSERT_TRUE(turn) << turn.error().describe();
  EXPECT_EQ(turn->attempts, 3);
  EXPECT_EQ(turn->tool_calls.at(0).arguments["code"], "return 1");
  EXPECT_EQ(t->sent().size(), 3u);
  ASSERT_EQ(log.waits.size(), 2u);
  EXPECT_LE(log.waits[1].second, milliseconds(5));  // test config caps backoff at 5 ms
}

TEST(LlmHttpProvider, HonoursRetryAfter) {
  auto t = std::make_shared<test::scripted_transport>();
  t->push_json(429, R"({"error":{"message":"slow down"}})", {{"retry-after-ms", "20"}});
  t->push_json(200, ok_body);
  retry_log log;
  auto p = create_openai_provider(core::real_clock(), test::test_config("openai", "http://h/v1"), t, log.observer());
  ASSERT_TRUE(test::run_sync(p->complete(test::simple_request())));
  ASSERT_EQ(log.waits.size(), 1u);
  EXPECT_EQ(log.waits[0].second, milliseconds(20));
}

TEST(LlmHttpProvider, NoRetryOnClientErrors) {
  for (long status : {400L, 401L, 403L, 404L}) {
    auto t = std::make_shared<test::scripted_transport>();
    t->push_json(status, R"({"error":{"message":"no"}})");
    t->push_json(200, ok_body);
    auto p = create_openai_provider(core::real_clock(), test::test_config("openai", "http://h/v1"), t);
    auto turn = test::run_sync(p->complete(test::simple_request()));
    ASSERT_FALSE(turn) << status;
    EXPECT_EQ(t->sent().size(), 1u) << status;
    EXPECT_NE(turn.error().message.find(std::to_string(status)), std::string::npos);
  }
}

TEST(LlmHttpProvider, GivesUpAfterMaxRetriesWithTheLastError) {
  auto t = std::make_shared<test::scripted_transport>();
  for (int i = 0; i < 5; ++i)
    t->push_json(529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
  auto p = create_anthropic_provider(core::real_clock(), test::test_config("anthropic", "http://h"), t);
  auto turn = test::run_sync(p->complete(test::simple_request()));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().code, harness::llm::errc::overloaded);
  EXPECT_NE(turn.error().message.find("after 3 attempts"), std::string::npos);
  EXPECT_EQ(t->sent().size(), 3u);  // max_retries = 2
}

TEST(LlmHttpProvider, RetryAfterPastTheDeadlineFailsAtOnce) {
  auto t = std::make_shared<test::scripted_transport>();
  t->push_json(429, "{}", {{"retry-after", "3600"}});
  auto p = create_openai_provider(core::real_clock(), test::test_config("openai", "http://h/v1"), t);
  auto turn = test::run_sync(p->complete(test::simple_request()));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().code, harness::llm::errc::rate_limited);
  EXPECT_NE(turn.error().hint.find("LLM_DEADLINE_MS"), std::string::npos);
  EXPECT_EQ(t->sent().size(), 1u);
}

TEST(LlmHttpProvider, RequestDeadlineInThePastFailsWithoutSending) {
  auto t = std::make_shared<test::scripted_transport>();
  auto p = create_openai_provider(core::real_clock(), test::test_config("openai", "http://h/v1"), t);
  auto request = test::simple_request();
  request.deadline = std::chrono::steady_clock::now() - milliseconds(1);
  auto turn = test::run_sync(p->complete(request));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().code, harness::llm::errc::deadline_exceeded);
  EXPECT_TRUE(t->sent().empty());
}

TEST(LlmHttpProvider, AttemptTimeoutIsBoundedByTheDeadline) {
  auto t = std::make_shared<test::scripted_transport>();
  t->push_json(200, ok_body);
  auto config = test::test_config("openai", "http://h/v1");
  config.timeout = milliseconds(600000);
  config.deadline = milliseconds(5000);
  auto p = create_openai_provider(core::real_clock(), config, t);
  ASSERT_TRUE(test::run_sync(p->complete(test::simple_request())));
  EXPECT_LE(t->sent().at(0).timeout, milliseconds(5000));
}

TEST(LlmHttpProvider, MalformedAnswerIsAnErrorNotARetry) {
  auto t = std::make_shared<test::scripted_transport>();
  t->push_json(200, "{\"choices\": [");
  auto p = create_openai_provider(core::real_clock(), test::test_config("openai", "http://h/v1"), t);
  auto turn = test::run_sync(p->complete(test::simple_request()));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().code, harness::llm::errc::bad_response);
  EXPECT_EQ(t->sent().size(), 1u);
}

TEST(LlmHttpProvider, FieldsOfTheWrongTypeAreABadResponse) {
  auto t = std::make_shared<test::scripted_transport>();
  t->push_json(
      200, R"({"choices":[{"message":{"content":"x","tool_calls":[{"id":5,"function":{"name":"execute_code"}}]}}]})");
  t->push_json(200, R"({"type":"message","content":[{"type":"tool_use","id":1,"name":"execute_code"}]})");
  auto openai = create_openai_provider(core::real_clock(), test::test_config("openai", "http://h/v1"), t);
  auto anthropic = create_anthropic_provider(core::real_clock(), test::test_config("anthropic", "http://h"), t);
  auto first = test::run_sync(openai->complete(test::simple_request()));
  ASSERT_FALSE(first);
  EXPECT_EQ(first.error().code, harness::llm::errc::bad_response);
  auto second = test::run_sync(anthropic->complete(test::simple_request()));
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, harness::llm::errc::bad_response);
}

TEST(LlmHttpProvider, TextFallbackAndKeyScrubbing) {
  auto config = test::test_config("openai", "http://h/v1");
  const std::string text = "Here:\n```javascript\nconst k = '" + config.api_key + "';\nreturn k;\n```";
  auto t = std::make_shared<test::scripted_transport>();
  t->push_json(200, nlohmann::json{{"choices", {{{"message", {{"content", text}}}}}}}.dump());
  auto p = create_openai_provider(core::real_clock(), config, t);
  auto turn = test::run_sync(p->complete(test::simple_request()));
  ASSERT_TRUE(turn) << turn.error().describe();
  ASSERT_EQ(turn->tool_calls.size(), 1u);
  EXPECT_TRUE(turn->tool_calls[0].from_text);
  EXPECT_EQ(turn->tool_calls[0].name, "execute_code");
  std::string code = turn->tool_calls[0].arguments["code"];
  EXPECT_EQ(code.find(config.api_key), std::string::npos);
  EXPECT_NE(code.find("[REDACTED]"), std::string::npos);
  EXPECT_EQ(turn->text.find(config.api_key), std::string::npos);
}

TEST(LlmHttpProvider, NativeModeIgnoresCodeInText) {
  auto config = test::test_config("openai", "http://h/v1");
  config.tools = tool_mode::native;
  auto t = std::make_shared<test::scripted_transport>();
  t->push_json(200, R"({"choices":[{"message":{"content":"```js\nreturn 1\n```"}}]})");
  auto p = create_openai_provider(core::real_clock(), config, t);
  auto turn = test::run_sync(p->complete(test::simple_request()));
  ASSERT_TRUE(turn);
  EXPECT_TRUE(turn->tool_calls.empty());
}

TEST(LlmHttpProvider, CancellingTheAwaitingCoroutineAbortsTheCall) {
  auto t = std::make_shared<test::scripted_transport>();
  t->push(test::hang{});
  auto p = create_openai_provider(core::real_clock(), test::test_config("openai", "http://h/v1"), t);
  auto out = test::complete_then_cancel(*p, test::simple_request(), [&] { return !t->sent().empty(); });
  ASSERT_TRUE(out);
  ASSERT_FALSE(*out);
  EXPECT_EQ(out->error().code, harness::core::errc::cancelled);
  EXPECT_EQ(t->sent().size(), 1u);
}

TEST(LlmHttpProvider, CancellingDuringBackoffStopsRetrying) {
  auto t = std::make_shared<test::scripted_transport>();
  t->push_json(429, "{}", {{"retry-after", "20"}});
  retry_log log;
  auto p = create_openai_provider(core::real_clock(), test::test_config("openai", "http://h/v1"), t, log.observer());
  auto out = test::complete_then_cancel(*p, test::simple_request(), [&] { return !log.waits.empty(); });
  ASSERT_TRUE(out && !*out);
  EXPECT_EQ(out->error().code, harness::core::errc::cancelled);
  EXPECT_EQ(t->sent().size(), 1u);
}

}  // namespace
}  // namespace harness::llm
