#include <gtest/gtest.h>

#include "harness/mcp/errors.hpp"
#include "harness/mcp/message_identity.hpp"
#include "sse_parser.hpp"
#include "tool_result.hpp"

namespace harness::mcp {
namespace {

using nlohmann::json;

json id_of(const message_identity& identity) {
  return identity.id ? *identity.id : json("(no id)");
}

TEST(MessageIdentity, FindsTheTopLevelIdAndMethodWhereverTheyAre) {
  auto last = identify_message(R"({"result":{"id":99,"content":[{"text":"\"id\":7"}]},"jsonrpc":"2.0","id":5})");
  EXPECT_EQ(id_of(last), 5);
  EXPECT_FALSE(last.has_method);
  EXPECT_TRUE(last.complete);
  EXPECT_TRUE(last.looks_like_message);
  EXPECT_EQ(id_of(identify_message(R"( {"id" : "a\"b", "result": {}})")), "a\"b");
  EXPECT_EQ(id_of(identify_message(R"({"jsonrpc":"2.0","id":null,"error":{}})")), nullptr);
  auto request = identify_message(R"({"method":"sampling/createMessage","id":3,"params":{}})");
  EXPECT_TRUE(request.has_method);
  EXPECT_EQ(id_of(request), 3);
}

TEST(MessageIdentity, ReadsWhatItCanOfBrokenOrCutMessages) {
  auto cut = identify_message(R"({"jsonrpc":"2.0","id":12,"result":{"content":[{"text":"abc)");
  EXPECT_EQ(id_of(cut), 12);
  EXPECT_FALSE(cut.complete);
  EXPECT_FALSE(identify_message(R"({"jsonrpc":"2.0","id":12)").id);  // the number may go on
  auto broken = identify_message(R"({"id":4,"result":{"value":NaN}})");
  EXPECT_EQ(id_of(broken), 4);
  EXPECT_TRUE(broken.complete);
  EXPECT_FALSE(identify_message(R"({"id":{"a":1}})").id);  // an object is no id
  EXPECT_FALSE(identify_message("this is a log line").looks_like_message);
  EXPECT_FALSE(identify_message("   ").looks_like_message);
  EXPECT_TRUE(identify_message(R"([{"id":1}])").complete);
  EXPECT_FALSE(identify_message(R"([{"id":1}])").id);  // batches are not read
}

TEST(MessageIdentity, StreamsInPiecesWithBoundedMemory) {
  message_identity_scanner scanner;
  scanner.feed(R"({"result":{"text":")");
  for (int i = 0; i < 1000; ++i) scanner.feed(std::string(1000, 'x'));
  scanner.feed(R"("},"jsonrpc":"2.0","i)");
  scanner.feed(R"(d":4)");
  scanner.feed("2}");
  EXPECT_EQ(id_of(scanner.identity()), 42);
  EXPECT_EQ(scanner.identity().bytes, 1000u * 1000u + 46u);
  EXPECT_FALSE(identify_message(R"({"id":")" + std::string(1000, '7') + R"("})").id);  // too long for an id
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
  int dropped = 0;
  sse_parser parser(
      16, [&](const sse_event& e) { events.push_back(e); }, [&](const message_identity&) { ++dropped; });
  parser.feed("data: 0123456789\ndata: 0123456789\n\ndata: ok\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "ok");
  EXPECT_EQ(dropped, 1);
}

TEST(SseParser, ReadsTheIdOfAnOversizedEventAndKnowsWhenItIsCutInOne) {
  std::vector<message_identity> dropped;
  sse_parser parser(
      32, [](const sse_event&) {}, [&](const message_identity& identity) { dropped.push_back(identity); });
  parser.feed(": long comments are skipped " + std::string(100, 'c') + "\nevent: message\nid: 7\n");
  parser.feed(R"(data: {"result":{"text":")" + std::string(100, 'x'));
  parser.feed(std::string(100, 'x') + "\"}");
  parser.feed(R"(,"jsonrpc":"2.0","id":3})");
  EXPECT_TRUE(dropped.empty());
  parser.feed("\n\n");
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(id_of(dropped[0]), 3);
  EXPECT_TRUE(dropped[0].complete);
  EXPECT_EQ(parser.last_event_id(), "7");
  EXPECT_FALSE(parser.mid_event());
  parser.feed("data: {\"id\":4,");
  EXPECT_TRUE(parser.mid_event());
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

TEST(ToolResult, TextIsParsedOnlyWhenAllOfItIsJson) {
  auto value_of = [](const std::string& text) {
    json result = {{"content", json::array({{{"type", "text"}, {"text", text}}})}};
    return *tool_result_value(std::move(result));
  };
  EXPECT_EQ(value_of(" \n[1, 2]"), json::parse("[1,2]"));
  EXPECT_EQ(value_of("true"), json(true));
  EXPECT_EQ(value_of("-1.5"), json(-1.5));
  EXPECT_EQ(value_of("\"quoted\""), json("quoted"));
  EXPECT_EQ(value_of("3 files"), json("3 files"));  // starts like JSON, is not
  EXPECT_EQ(value_of("null and void"), json("null and void"));
  EXPECT_EQ(value_of("Echo: x"), json("Echo: x"));
  EXPECT_EQ(value_of("   "), json("   "));
  EXPECT_EQ(value_of(""), json(""));
  // A document nested past core::max_json_depth stays text: parsing it would
  // hand code a value that copies and prints only by recursing 200,000 deep.
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  EXPECT_EQ(value_of(deep), json(deep));
  EXPECT_EQ(value_of(std::string(256, '[') + std::string(256, ']')).size(), 1u);
}

TEST(ToolResult, OddFieldTypesAreKeptNotThrown) {
  // A non-boolean isError is not an error flag; a non-string type is an item like any other.
  auto r = tool_result_value(json::parse(R"({"content":[{"type":"text","text":"fine"}],"isError":"yes"})"));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, json("fine"));
  auto odd = tool_result_value(json::parse(R"({"content":[{"type":7,"text":"x"},{"type":"resource_link","uri":"u"}]})"),
                               "files");
  ASSERT_TRUE(odd);
  EXPECT_EQ((*odd)[0]["type"], 7);
  EXPECT_EQ((*odd)[1]["server"], "files");
}

TEST(ToolResult, IsErrorBecomesAnErrorWithTheToolText) {
  auto r = tool_result_value(json::parse(R"({"content":[{"type":"text","text":"no such file"}],"isError":true})"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, harness::mcp::errc::tool_error);
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
