#include <gtest/gtest.h>

#include "harness/mcp/line_splitter.hpp"
#include "harness/mcp/sse_parser.hpp"
#include "harness/mcp/tool_result.hpp"

namespace harness::mcp {
namespace {

using nlohmann::json;

TEST(LineSplitter, SplitsPartialLinesAndDropsOversizedOnes) {
  std::vector<std::string> lines;
  std::vector<std::size_t> dropped;
  line_splitter splitter(
      8, [&](std::string_view l) { lines.emplace_back(l); }, [&](std::size_t n) { dropped.push_back(n); });
  splitter.feed("ab");
  splitter.feed("c\r\nde");
  EXPECT_EQ(lines, (std::vector<std::string>{"abc"}));
  splitter.feed("f\n0123456789abc");
  splitter.feed("def\nok\n");
  EXPECT_EQ(lines, (std::vector<std::string>{"abc", "def", "ok"}));
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0], 16u);
  EXPECT_EQ(splitter.pending(), 0u);
}

TEST(SseParser, ParsesEventsIdsRetryAndCommentsAcrossChunks) {
  std::vector<sse_event> events;
  sse_parser parser(
      1024, [&](const sse_event& e) { events.push_back(e); }, nullptr);
  parser.feed(": keep-alive\n\nid: 1\nretry: 500\ndata: \n\n");  // priming event
  parser.feed("event: message\nid: 2\ndata: {\"a\":");
  parser.feed("1}\r\n\r\ndata: line1\rdata: line2\r\r");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].data, "");
  EXPECT_EQ(*events[0].id, "1");
  EXPECT_EQ(events[1].data, "{\"a\":1}");
  EXPECT_EQ(events[2].data, "line1\nline2");
  EXPECT_FALSE(events[2].id);
  EXPECT_EQ(parser.last_event_id(), "2");
  EXPECT_EQ(parser.retry_ms(), 500);
}

TEST(SseParser, DropsAnOversizedEventAndRecovers) {
  std::vector<sse_event> events;
  int errors = 0;
  sse_parser parser(
      16, [&](const sse_event& e) { events.push_back(e); }, [&](const std::string&) { ++errors; });
  parser.feed("data: 0123456789\ndata: 0123456789\n\ndata: ok\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "ok");
  EXPECT_GE(errors, 1);
}

TEST(ToolResult, PrefersStructuredContentThenParsesJsonText) {
  EXPECT_EQ(*tool_result_value(json::parse(R"({"content":[{"type":"text","text":"x"}],"structuredContent":{"a":1}})")),
            json::parse(R"({"a":1})"));
  EXPECT_EQ(*tool_result_value(json::parse(R"({"content":[{"type":"text","text":"{\"b\":[1,2]}"}]})")),
            json::parse(R"({"b":[1,2]})"));
  EXPECT_EQ(*tool_result_value(json::parse(R"({"content":[{"type":"text","text":"plain"}]})")), json("plain"));
  auto mixed = *tool_result_value(json::parse(
      R"({"content":[{"type":"text","text":"42"},{"type":"image","data":"AA==","mimeType":"image/png"}]})"));
  ASSERT_TRUE(mixed.is_array());
  EXPECT_EQ(mixed[0], 42);
  EXPECT_EQ(mixed[1]["type"], "image");
}

TEST(ToolResult, IsErrorBecomesAnErrorWithTheToolText) {
  auto r = tool_result_value(json::parse(R"({"content":[{"type":"text","text":"no such file"}],"isError":true})"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "mcp_tool_error");
  EXPECT_EQ(r.error().message, "no such file");
  EXPECT_FALSE(tool_result_value(json("nope")));
}

TEST(ToolRanking, RanksNameMatchesAboveDescriptionMatches) {
  std::vector<ranked_tool> tools = {
      {"fs__read_file", "Read the complete contents of a file", 0},
      {"fs__list_directory", "List files in a directory", 0},
      {"memory__create_entities", "Create entities in the knowledge graph", 0},
  };
  auto ranked = rank_tools(tools, "read file");
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].name, "fs__read_file");
  EXPECT_EQ(ranked[1].name, "fs__list_directory");
  EXPECT_EQ(rank_tools(tools, "graph")[0].name, "memory__create_entities");
  EXPECT_EQ(rank_tools(tools, "dir")[0].name, "fs__list_directory");  // prefix match
  EXPECT_TRUE(rank_tools(tools, "weather").empty());
  EXPECT_EQ(rank_tools(tools, "").size(), 3u);
  EXPECT_EQ(rank_tools({{"x__readFile", "", 0}}, "file").size(), 1u);  // camelCase split
}

TEST(ToolRanking, ShortDescriptionKeepsTheFirstSentence) {
  EXPECT_EQ(short_description("Reads a file. Use with care.\nMore"), "Reads a file.");
  EXPECT_EQ(short_description(std::string(300, 'a'), 10), std::string(10, 'a') + "...");
}

}  // namespace
}  // namespace harness::mcp
