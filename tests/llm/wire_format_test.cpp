#include <gtest/gtest.h>

#include "llm/test_support.hpp"
#include "wire_format.hpp"

#include "harness/llm/errors.hpp"

namespace harness::llm::detail {
namespace {

using nlohmann::json;

std::string header(const harness::net::request& r, const std::string& name) {
  for (const auto& [n, v] : r.headers) {
    if (n == name) return v;
  }
  return {};
}

// system, user, assistant calling the tool twice, two results, user follow-up.
llm_request conversation() {
  auto r = test::simple_request();
  message a{message_role::assistant, "", {}, "", false, false};
  a.tool_calls.push_back({"call_a", "execute_code", {{"code", "return 1"}}, false});
  a.tool_calls.push_back({"call_b", "execute_code", {{"code", "return 2"}}, false});
  r.messages.push_back(a);
  r.messages.push_back({message_role::tool, "1", {}, "call_a", false, false});
  r.messages.push_back({message_role::tool, "boom", {}, "call_b", true, false});
  r.messages.push_back({message_role::user, "and now?", {}, "", false, false});
  return r;
}

TEST(LlmOpenAiWire, BuildsChatCompletionsRequest) {
  auto config = test::test_config("openai", "http://h/v1");
  config.temperature = 0.5;
  auto wire = make_openai_dialect(config)->build(conversation(), true);
  EXPECT_EQ(wire.url, "http://h/v1/chat/completions");
  EXPECT_EQ(header(wire, "Authorization"), "Bearer " + config.api_key);
  json body = json::parse(wire.body);
  EXPECT_EQ(body["model"], "gpt-test");
  EXPECT_EQ(body["max_tokens"], 4096);
  EXPECT_EQ(body["temperature"], 0.5);
  EXPECT_EQ(body["tools"][0]["type"], "function");
  EXPECT_EQ(body["tools"][0]["function"]["name"], "execute_code");
  EXPECT_EQ(body["tools"][0]["function"]["parameters"]["required"][0], "code");
  const json& m = body["messages"];
  ASSERT_EQ(m.size(), 6u);
  EXPECT_EQ(m[0]["role"], "system");
  EXPECT_TRUE(m[2]["content"].is_null());
  EXPECT_EQ(m[2]["tool_calls"][1]["id"], "call_b");
  EXPECT_EQ(json::parse(m[2]["tool_calls"][0]["function"]["arguments"].get<std::string>())["code"], "return 1");
  EXPECT_EQ(m[3]["role"], "tool");
  EXPECT_EQ(m[3]["tool_call_id"], "call_a");
  EXPECT_EQ(m[4]["content"], "boom");
  EXPECT_EQ(body.dump().find("SECRET"), std::string::npos);  // the key is a header, never in the body
}

TEST(LlmOpenAiWire, NoKeyNoAuthorizationAndZeroMaxTokensIsOmitted) {
  auto config = test::test_config("openai", "http://h/v1");
  config.api_key.clear();
  config.max_tokens = 0;
  auto wire = make_openai_dialect(config)->build(test::simple_request(), true);
  EXPECT_EQ(header(wire, "Authorization"), "");
  EXPECT_FALSE(json::parse(wire.body).contains("max_tokens"));
}

// A reply nested past core::max_json_depth is a bad response, refused while
// parsing; arguments that nest so deep stay the text they came as.
TEST(LlmWire, RepliesNestedTooDeepAreBadResponses) {
  const std::string deep = std::string(300000, '[') + std::string(300000, ']');
  auto openai = make_openai_dialect(test::test_config("openai", "http://h/v1"));
  auto anthropic = make_anthropic_dialect(test::test_config("anthropic", "http://h"));
  for (const auto* d : {openai.get(), anthropic.get()}) {
    auto turn = d->parse(R"({"choices":)" + deep + R"(,"content":)" + deep + "}");
    ASSERT_FALSE(turn);
    EXPECT_EQ(turn.error().code, harness::llm::errc::bad_response);
  }
  auto args = openai->parse(R"({"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"c","type":"function",)"
                            R"("function":{"name":"execute_code","arguments":")" +
                            deep + R"("}}]},"finish_reason":"tool_calls"}]})");
  ASSERT_TRUE(args) << args.error().message;
  EXPECT_EQ(args->tool_calls[0].arguments, deep);
}

TEST(LlmOpenAiWire, ParsesToolCallsUsageAndOddArguments) {
  auto d = make_openai_dialect(test::test_config("openai", "http://h/v1"));
  auto turn = d->parse(R"({"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[
      {"id":"call_1","type":"function","function":{"name":"execute_code","arguments":"{\"code\":\"return 1\"}"}},
      {"id":"call_2","type":"function","function":{"name":"execute_code","arguments":{"code":"return 2"}}},
      {"type":"function","function":{"name":"execute_code","arguments":"{not json"}}]},
      "finish_reason":"tool_calls"}],"usage":{"prompt_tokens":120,"completion_tokens":30,"total_tokens":150}})");
  ASSERT_TRUE(turn) << turn.error().message;
  ASSERT_EQ(turn->tool_calls.size(), 3u);
  EXPECT_EQ(turn->tool_calls[0].arguments["code"], "return 1");
  EXPECT_EQ(turn->tool_calls[1].arguments["code"], "return 2");
  EXPECT_EQ(turn->tool_calls[2].arguments, "{not json");
  EXPECT_EQ(turn->text, "");
  EXPECT_EQ(turn->stop_reason, "tool_calls");
  EXPECT_EQ(turn->usage.input_tokens, 120);
  EXPECT_EQ(turn->usage.output_tokens, 30);
}

TEST(LlmOpenAiWire, BadBodiesAreClearErrors) {
  auto d = make_openai_dialect(test::test_config("openai", "http://h/v1"));
  EXPECT_EQ(d->parse("{\"choices\": [").error().code, harness::llm::errc::bad_response);
  EXPECT_EQ(d->parse(R"({"choices":[]})").error().code, harness::llm::errc::bad_response);
  EXPECT_EQ(d->parse(R"({"choices":[{"message":{"content":5}}]})").error().code, harness::llm::errc::bad_response);
}

TEST(LlmAnthropicWire, BuildsMessagesRequest) {
  auto config = test::test_config("anthropic", "http://h");
  auto wire = make_anthropic_dialect(config)->build(conversation(), true);
  EXPECT_EQ(wire.url, "http://h/v1/messages");
  EXPECT_EQ(header(wire, "x-api-key"), config.api_key);
  EXPECT_EQ(header(wire, "anthropic-version"), "2023-06-01");
  json body = json::parse(wire.body);
  EXPECT_EQ(body["system"], "You write JavaScript.");
  EXPECT_EQ(body["max_tokens"], 4096);
  EXPECT_EQ(body["tools"][0]["input_schema"]["type"], "object");
  const json& m = body["messages"];
  // user, assistant (two tool_use), user (two tool_results + the follow-up text): roles alternate.
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[1]["role"], "assistant");
  ASSERT_EQ(m[1]["content"].size(), 2u);  // no empty text block
  EXPECT_EQ(m[1]["content"][0]["type"], "tool_use");
  EXPECT_EQ(m[1]["content"][0]["input"]["code"], "return 1");
  EXPECT_EQ(m[2]["role"], "user");
  ASSERT_EQ(m[2]["content"].size(), 3u);
  EXPECT_EQ(m[2]["content"][0]["tool_use_id"], "call_a");
  EXPECT_FALSE(m[2]["content"][0].contains("is_error"));
  EXPECT_EQ(m[2]["content"][1]["is_error"], true);
  EXPECT_EQ(m[2]["content"][2]["text"], "and now?");
}

TEST(LlmAnthropicWire, ParsesContentBlocks) {
  auto d = make_anthropic_dialect(test::test_config("anthropic", "http://h"));
  auto turn = d->parse(R"({"id":"msg_1","type":"message","role":"assistant","content":[
      {"type":"text","text":"Let me check."},
      {"type":"tool_use","id":"toolu_1","name":"execute_code","input":{"code":"return 1"}}],
      "stop_reason":"tool_use","usage":{"input_tokens":50,"output_tokens":7}})");
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(turn->text, "Let me check.");
  ASSERT_EQ(turn->tool_calls.size(), 1u);
  EXPECT_EQ(turn->tool_calls[0].id, "toolu_1");
  EXPECT_EQ(turn->tool_calls[0].arguments["code"], "return 1");
  EXPECT_EQ(turn->stop_reason, "tool_use");
  EXPECT_EQ(turn->usage.input_tokens, 50);
  EXPECT_EQ(turn->usage.output_tokens, 7);
  EXPECT_EQ(d->parse(R"({"type":"message"})").error().code, harness::llm::errc::bad_response);
}

TEST(LlmTextModeWire, CallsStayInTheTextAndResultsBecomeUserMessages) {
  auto r = test::simple_request();
  message a{message_role::assistant, "```javascript\nreturn 1\n```", {}, "", false, false};
  a.tool_calls.push_back({"text_call_1", "execute_code", {{"code", "return 1"}}, true});
  r.messages.push_back(a);
  r.messages.push_back({message_role::tool, "1", {}, "text_call_1", false, true});
  for (auto& d : {make_openai_dialect(test::test_config("openai", "http://h/v1")),
                  make_anthropic_dialect(test::test_config("anthropic", "http://h"))}) {
    json body = json::parse(d->build(r, false).body);
    EXPECT_FALSE(body.contains("tools")) << d->name();
    std::string dump = body["messages"].dump();
    EXPECT_EQ(dump.find("tool_call"), std::string::npos) << d->name();
    EXPECT_EQ(dump.find("tool_use"), std::string::npos) << d->name();
    EXPECT_NE(dump.find("Result of the code block"), std::string::npos) << d->name();
  }
}

}  // namespace
}  // namespace harness::llm::detail
