#include <gtest/gtest.h>

#include "harness/llm/errors.hpp"
#include "harness/llm/types.hpp"

namespace harness::llm {
namespace {

TEST(LlmTypes, RequestAndTurnRoundTripThroughJson) {
  llm_request r;
  r.messages.push_back({message_role::system, "sys", {}, "", false, false});
  message assistant{message_role::assistant, "let me look", {}, "", false, false};
  assistant.tool_calls.push_back({"call_1", "execute_code", {{"code", "return 1"}}, false});
  r.messages.push_back(assistant);
  r.messages.push_back({message_role::tool, "1", {}, "call_1", true, false});
  r.tools.push_back(execute_code_tool());
  r.max_tokens = 100;
  auto back = request_from_json(to_json(r));
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->messages.size(), 3u);
  EXPECT_EQ(back->messages[1].tool_calls.at(0).arguments["code"], "return 1");
  EXPECT_EQ(back->messages[2].tool_call_id, "call_1");
  EXPECT_TRUE(back->messages[2].is_error);
  EXPECT_EQ(back->tools.at(0).name, "execute_code");
  EXPECT_EQ(*back->max_tokens, 100);

  llm_turn t;
  t.text = "done";
  t.tool_calls.push_back({"x", "execute_code", {{"code", "1"}}, true});
  t.usage = {12, 3};
  t.stop_reason = "stop";
  auto turn = turn_from_json(to_json(t));
  ASSERT_TRUE(turn);
  EXPECT_EQ(turn->text, "done");
  EXPECT_TRUE(turn->tool_calls.at(0).from_text);
  EXPECT_EQ(turn->usage.input_tokens, 12);
  EXPECT_EQ(turn->usage.output_tokens, 3);
}

TEST(LlmTypes, BadJsonNamesTheField) {
  auto r = request_from_json({{"messages", {{{"role", "wizard"}}}}});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("wizard"), std::string::npos);
  auto t = turn_from_json({{"text", 5}});
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("text"), std::string::npos);
  EXPECT_FALSE(request_from_json(nlohmann::json::array()));
  // Fields of the wrong type are errors, not exceptions.
  EXPECT_FALSE(turn_from_json({{"toolCalls", {{{"name", "x"}, {"id", 5}}}}}));
  EXPECT_FALSE(message_from_json({{"role", "tool"}, {"toolCallId", 7}}));
  EXPECT_EQ(error_from_json({{"code", 1}}).code, harness::llm::errc::error);
}

}  // namespace
}  // namespace harness::llm
