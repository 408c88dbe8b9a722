#include <gtest/gtest.h>

#include "harness/bridge/frame_lines.hpp"

namespace harness::bridge {
namespace {

TEST(FrameLines, SplitsLinesAcrossChunks) {
  frame_lines lines(100);
  lines.append("ab");
  EXPECT_FALSE(lines.next());
  lines.append("c\nde\n\nf");
  EXPECT_EQ(lines.next()->value(), "abc");
  EXPECT_EQ(lines.next()->value(), "de");
  EXPECT_EQ(lines.next()->value(), "");
  EXPECT_FALSE(lines.next());
  lines.append("\n");
  EXPECT_EQ(lines.next()->value(), "f");
}

TEST(FrameLines, AnOverlongLineIsReportedAtOnceAndSkipped) {
  frame_lines lines(4);
  lines.append("ok\n12345678");  // no newline yet, already too long
  EXPECT_EQ(lines.next()->value(), "ok");
  auto item = lines.next();
  ASSERT_TRUE(item);
  ASSERT_FALSE(item->has_value());
  EXPECT_EQ(item->error().code, "frame_too_large");
  EXPECT_NE(item->error().message.find("longer than 4 bytes"), std::string::npos);
  EXPECT_FALSE(lines.next());
  lines.append("90\nok\n");
  EXPECT_EQ(lines.next()->value(), "ok");
  lines.append("123456\nab\n");  // overlong with its newline in the same chunk
  EXPECT_FALSE(lines.next()->has_value());
  EXPECT_EQ(lines.next()->value(), "ab");
}

}  // namespace
}  // namespace harness::bridge
