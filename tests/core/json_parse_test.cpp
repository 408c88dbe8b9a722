// core::parse_json, the one parser of JSON from outside: nesting is limited
// while parsing, and every failure comes back as a value with a reason.
#include <gtest/gtest.h>

#include "harness/core/json_parse.hpp"

namespace harness::core {
namespace {

using json = nlohmann::json;

std::string arrays(std::size_t levels, const std::string& inner = "") {
  return std::string(levels, '[') + inner + std::string(levels, ']');
}

TEST(JsonParse, ParsesWhatNlohmannParses) {
  EXPECT_EQ(parse_json(R"( {"a": [1, 2.5, "x", null, true]} )"), json::parse(R"({"a":[1,2.5,"x",null,true]})"));
  EXPECT_EQ(parse_json("7"), json(7));
  EXPECT_EQ(parse_json("\"\\u00e9\""), json("\u00e9"));
}

TEST(JsonParse, NestingUpToTheLimitIsAValueAndPastItIsRefused) {
  auto at_limit = parse_json(arrays(max_json_depth));
  ASSERT_FALSE(at_limit.is_discarded());
  // Such a value can be copied, compared and printed (each recurses per level).
  json copy = at_limit;
  EXPECT_EQ(copy, at_limit);
  EXPECT_EQ(copy.dump().size(), 2 * max_json_depth);

  std::string why;
  EXPECT_TRUE(parse_json(arrays(max_json_depth + 1), &why).is_discarded());
  EXPECT_EQ(why, "JSON nests deeper than 256 levels of arrays and objects (at byte offset 256)");
  // Objects count as arrays do; the offset names the bracket that went past.
  std::string objects;
  for (std::size_t i = 0; i <= max_json_depth; ++i) objects += R"({"k":)";
  objects += "1" + std::string(max_json_depth + 1, '}');
  EXPECT_TRUE(parse_json(objects, &why).is_discarded());
  EXPECT_EQ(why, "JSON nests deeper than 256 levels of arrays and objects (at byte offset 1280)");
}

TEST(JsonParse, AMillionLevelsAreRefusedWithoutTouchingTheStack) {
  std::string why;
  EXPECT_TRUE(parse_json(arrays(1000000), &why).is_discarded());
  EXPECT_NE(why.find("nests deeper than 256"), std::string::npos);
  // Unclosed, as a stream cut short would leave it.
  EXPECT_TRUE(parse_json(std::string(1000000, '{'), &why).is_discarded());
}

TEST(JsonParse, BracketsInsideStringsDoNotCount) {
  std::string text = R"({"a":"[[[[\"{{{{","b":)" + arrays(max_json_depth - 1) + "}";
  EXPECT_FALSE(parse_json(text).is_discarded());
  std::string why;
  std::string deeper = R"({"a":"]]]]\\","b":)" + arrays(max_json_depth) + "}";
  EXPECT_TRUE(parse_json(deeper, &why).is_discarded());
  EXPECT_NE(why.find("at byte offset " + std::to_string(deeper.find('[') + max_json_depth - 1)), std::string::npos)
      << why;
}

TEST(JsonParse, ALimitOfItsOwn) {
  EXPECT_FALSE(parse_json("[[1]]", nullptr, 2).is_discarded());
  EXPECT_TRUE(parse_json("[[[1]]]", nullptr, 2).is_discarded());
}

TEST(JsonParse, SyntaxErrorsSayWhereWithoutThrowing) {
  std::string why;
  EXPECT_TRUE(parse_json("{\"a\": }", &why).is_discarded());
  EXPECT_EQ(why.rfind("parse error at line 1, column 7", 0), 0u) << why;
  EXPECT_TRUE(parse_json("[1] [2]", &why).is_discarded());  // one value only
  EXPECT_NE(why.find("parse error"), std::string::npos);
  EXPECT_TRUE(parse_json("", &why).is_discarded());
  EXPECT_TRUE(parse_json("{\"v\": NaN}").is_discarded());
  EXPECT_TRUE(parse_json("\"\xff\"").is_discarded());  // not UTF-8
}

}  // namespace
}  // namespace harness::core
