#include <gtest/gtest.h>

#include "harness/bridge/line_buffer.hpp"

namespace harness::bridge {
namespace {

TEST(LineBuffer, SplitsLinesAcrossChunks) {
  line_buffer lines(100);
  lines.append("ab");
  EXPECT_FALSE(lines.next());
  lines.append("c\nde\n\nf");
  EXPECT_EQ(lines.next()->line, "abc");
  EXPECT_EQ(lines.next()->line, "de");
  EXPECT_EQ(lines.next()->line, "");
  EXPECT_FALSE(lines.next());
  lines.append("\n");
  EXPECT_EQ(lines.next()->line, "f");
}

TEST(LineBuffer, AnOverlongLineIsReportedOnceAndSkipped) {
  line_buffer lines(4);
  lines.append("12345678");  // no newline yet, already too long
  auto item = lines.next();
  ASSERT_TRUE(item);
  EXPECT_EQ(item->what, line_buffer::kind::too_long);
  EXPECT_FALSE(lines.next());
  lines.append("90\nok\n");
  EXPECT_EQ(lines.next()->line, "ok");
  lines.append("123456\nab\n");  // overlong with its newline in the same chunk
  EXPECT_EQ(lines.next()->what, line_buffer::kind::too_long);
  EXPECT_EQ(lines.next()->line, "ab");
}

}  // namespace
}  // namespace harness::bridge
