#include <gtest/gtest.h>

#include "harness/core/settings.hpp"

namespace harness::core {
namespace {

TEST(Dotenv, ParsesPlainQuotedAndExportedLines) {
  auto values = parse_dotenv(
      "# comment\n"
      "PORT=3000\n"
      "export LOG_FORMAT=json\n"
      "LLM_MODEL=\"gpt 4\"  \n"
      "SINGLE='a\\nb'\n"
      "DOUBLE=\"a\\nb\"\n"
      "EMPTY=\n"
      "TRAILING=value # a comment\n");
  ASSERT_TRUE(values) << values.error().message;
  EXPECT_EQ(values->at("PORT"), "3000");
  EXPECT_EQ(values->at("LOG_FORMAT"), "json");
  EXPECT_EQ(values->at("LLM_MODEL"), "gpt 4");
  EXPECT_EQ(values->at("SINGLE"), "a\\nb");
  EXPECT_EQ(values->at("DOUBLE"), "a\nb");
  EXPECT_EQ(values->at("EMPTY"), "");
  EXPECT_EQ(values->at("TRAILING"), "value");
}

TEST(Dotenv, RejectsLineWithoutEqualsNamingTheLine) {
  auto values = parse_dotenv("PORT=1\njust words\n");
  ASSERT_FALSE(values);
  EXPECT_NE(values.error().message.find("line 2"), std::string::npos) << values.error().message;
}

TEST(Dotenv, RejectsBadKeyAndUnterminatedQuote) {
  EXPECT_FALSE(parse_dotenv("1PORT=3\n"));
  EXPECT_FALSE(parse_dotenv("BAD-KEY=3\n"));
  auto unterminated = parse_dotenv("A=\"open\n");
  ASSERT_FALSE(unterminated);
  EXPECT_NE(unterminated.error().message.find("unterminated"), std::string::npos);
}

}  // namespace
}  // namespace harness::core
