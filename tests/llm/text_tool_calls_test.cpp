#include <gtest/gtest.h>

#include "text_tool_calls.hpp"

namespace harness::llm {
namespace {

TEST(LlmTextToolCalls, FindsTheFirstJavascriptBlock) {
  auto code = extract_javascript_block(
      "I'll list tools.\n```python\nprint(1)\n```\n```javascript\nconst t = await list_mcp_tools();\nreturn "
      "t;\n```\nmore ```js\nx\n```");
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, "const t = await list_mcp_tools();\nreturn t;");
}

TEST(LlmTextToolCalls, AcceptsJsTagTildesCaseAndIndentation) {
  EXPECT_EQ(extract_javascript_block("  ~~~JS\nreturn 2\n  ~~~\n").value_or(""), "return 2");
  EXPECT_EQ(extract_javascript_block("```Javascript \nreturn 3\n```").value_or(""), "return 3");
}

TEST(LlmTextToolCalls, UnterminatedBlockRunsToTheEnd) {
  EXPECT_EQ(extract_javascript_block("```javascript\nreturn 4;\n").value_or("none"), "return 4;\n");
}

TEST(LlmTextToolCalls, NoBlockNoCode) {
  EXPECT_FALSE(extract_javascript_block("The answer is 42."));
  EXPECT_FALSE(extract_javascript_block("```\nuntagged\n```"));
  EXPECT_FALSE(extract_javascript_block("inline ```javascript x``` is not a block"));
  EXPECT_FALSE(extract_javascript_block(""));
}

}  // namespace
}  // namespace harness::llm
