#include "strict_json.hpp"
#include "harness/http/errors.hpp"

#include <gtest/gtest.h>

#include <string>

namespace harness::http {
namespace {

using namespace std::string_literals;

// The refusal's code and message, or a test failure when it parsed.
harness::error refusal(std::string_view text) {
  auto parsed = parse_strict_json(text);
  EXPECT_FALSE(parsed) << "parsed: " << text;
  return parsed ? harness::error{} : parsed.error();
}

void expect_message_has(const harness::error& e, const std::string& part) {
  EXPECT_NE(e.message.find(part), std::string::npos) << "'" << part << "' not in: " << e.message;
}

TEST(StrictJson, KeepsEveryValueAsNlohmannWould) {
  std::string text =
      R"({"s":"x\u00e9\n","a":["y",{"c":"z"},[]],"o":{},"d":1.5,"i":-3,"u":18446744073709551615,"t":true,"n":null})";
  auto parsed = parse_strict_json(text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(*parsed, nlohmann::json::parse(text));
}

TEST(StrictJson, AllowsWhitespaceAroundTheValueAndScalarRoots) {
  EXPECT_TRUE(parse_strict_json(" \t\r\n{\"a\":1} \r\n\t"));
  EXPECT_EQ(parse_strict_json("[1, 2]").value(), nlohmann::json::array({1, 2}));
  EXPECT_EQ(parse_strict_json(" 42 ").value(), 42);
}

TEST(StrictJson, NulAndWhatFollowsItAreTrailingData) {
  auto e = refusal("{\"a\":1}\0garbage"s);
  EXPECT_EQ(e.code, harness::http::errc::malformed_json);
  expect_message_has(e, "more follows it (a NUL byte at byte offset 7)");
  expect_message_has(refusal("{\"a\":1} \n\0"s), "byte offset 9");
  expect_message_has(refusal("7\0"s), "byte offset 1");
}

TEST(StrictJson, ASecondValueOrStrayBytesAreTrailingData) {
  auto second = refusal(R"({"a":1}{"b":2})");
  EXPECT_EQ(second.code, harness::http::errc::malformed_json);
  expect_message_has(second, "exactly one JSON value, but more follows it ('{' at byte offset 7)");
  expect_message_has(refusal("{\"a\":1}\n x"), "('x' at byte offset 9)");
  expect_message_has(refusal("{\"a\":1}\xff"), "(byte 0xff at byte offset 7)");
}

TEST(StrictJson, DuplicateKeyIsNamedWithItsPath) {
  auto top = refusal(R"({"userId":"a","task":"t","userId":"b"})");
  EXPECT_EQ(top.code, harness::http::errc::invalid_body);
  expect_message_has(top, "the key 'userId' appears twice");
  expect_message_has(refusal(R"({"files":[{"path":"a"},{"path":"b"},{"size":1,"path":"c","path":"d"}]})"),
                     "'files[2].path'");
  expect_message_has(refusal(R"({"a":{"b":{"c":1,"c":2}}})"), "'a.b.c'");
  expect_message_has(refusal(R"([[{"k":1,"k":2}]])"), "'[0][0].k'");
  expect_message_has(refusal(R"({"x":1,"a":[0,{"y":[{"z":1},{"z":1,"z":2}]}]})"), "'a[1].y[1].z'");
}

TEST(StrictJson, DeepPathKeepsItsInnermostSteps) {
  constexpr int depth = 200;  // under the depth limit, and still a path far longer than a message line
  auto e = refusal("{\"a\":" + std::string(depth, '[') + R"({"k":1,"k":2})" + std::string(depth, ']') + "}");
  EXPECT_EQ(e.code, harness::http::errc::invalid_body);
  expect_message_has(e, "the key '...[0][0]");
  expect_message_has(e, "[0][0].k' appears twice");
  EXPECT_LT(e.message.size(), 400u);
}

// Found by fuzz/json: a second value that runs to the end of the body made the
// message read the byte past the end.
TEST(StrictJson, TrailingDataThatRunsToTheEndIsNamedWithoutReadingPastIt) {
  for (std::string text : {"2\t\"ii[[[[", "1 \"", "{} [", "true \"abc"}) {
    auto e = refusal(text);
    EXPECT_EQ(e.code, http::errc::malformed_json) << text;
    expect_message_has(e, "more follows it");
  }
}

TEST(StrictJson, NestingPastTheLimitIsRefusedWithWhere) {
  const std::string ok = std::string(256, '[') + std::string(256, ']');
  EXPECT_TRUE(parse_strict_json(ok));
  // 400,000 levels in about 800 KB: refused while parsing, before any code
  // could copy or print the value (which recurse once per level).
  auto e = refusal(R"({"code":)" + std::string(400000, '[') + std::string(400000, ']') + "}");
  EXPECT_EQ(e.code, http::errc::invalid_body);
  expect_message_has(e, "nests deeper than 256 levels of arrays and objects (at byte offset 263)");
  expect_message_has(e, "send a flatter document");
}

TEST(StrictJson, EqualKeysInDifferentObjectsAreFine) {
  EXPECT_TRUE(parse_strict_json(R"({"a":{"x":1},"b":{"x":2},"c":[{"x":3},{"x":4}]})"));
}

TEST(StrictJson, NumberBeyondADoubleIsNamedWithItsOffset) {
  auto e = refusal(R"({"limit": 1e400})");
  EXPECT_EQ(e.code, harness::http::errc::invalid_body);
  expect_message_has(e, "the number 1e400 at byte offset 10 is out of a double's range");
  expect_message_has(refusal(R"([-1e400])"), "the number -1e400 at byte offset 1");
  // 400 digits overflow a double too; the message quotes only their start.
  auto digits = refusal("{\"n\":" + std::string(400, '9') + "}");
  EXPECT_EQ(digits.code, harness::http::errc::invalid_body);
  expect_message_has(digits, "at byte offset 5");
  EXPECT_LT(digits.message.size(), 400u);
}

TEST(StrictJson, SyntaxErrorSaysWhatAndWhere) {
  auto cut = refusal(R"({"a":)");
  EXPECT_EQ(cut.code, harness::http::errc::malformed_json);
  expect_message_has(cut, "unexpected end of input");
  expect_message_has(cut, "at byte offset 5 (the end of the body)");
  auto comma = refusal(R"({"a":1,})");
  expect_message_has(comma, "unexpected '}'; expected string literal at byte offset 7");
  EXPECT_EQ(comma.message.find("json.exception"), std::string::npos) << comma.message;
}

TEST(StrictJson, MessageNeverEchoesALargeBody) {
  auto e = refusal("{\"code\":\"" + std::string(100000, 'a') + "\n\"}");
  expect_message_has(e, "control character U+000A");
  EXPECT_LT(e.message.size(), 400u);
}

}  // namespace
}  // namespace harness::http
