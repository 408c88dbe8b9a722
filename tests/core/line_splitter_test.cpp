#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/core/line_splitter.hpp"

namespace harness::core {
namespace {

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

TEST(LineSplitter, ShowsTheBytesOfADroppedLineAndHoldsAPartialOne) {
  std::string seen;
  line_splitter splitter(
      8, [](std::string_view) {}, [](std::size_t) {}, [&](std::string_view bytes) { seen.append(bytes); });
  splitter.feed("0123");
  splitter.feed("456789");
  EXPECT_TRUE(splitter.dropping());
  splitter.feed("ab\ncd");
  EXPECT_EQ(seen, "0123456789ab");
  EXPECT_FALSE(splitter.dropping());
  EXPECT_EQ(splitter.partial(), "cd");
}

TEST(LineSplitter, SaysAtOnceWhenALinePassesTheCap) {
  int started = 0;
  std::vector<std::size_t> dropped;
  line_splitter splitter(
      4, [](std::string_view) {}, [&](std::size_t n) { dropped.push_back(n); });
  splitter.on_overflow_start([&] { ++started; });
  splitter.feed("1234");
  EXPECT_EQ(started, 0);
  splitter.feed("5");
  EXPECT_EQ(started, 1);
  EXPECT_TRUE(dropped.empty());  // the line has not ended yet
  splitter.feed("678\n");
  EXPECT_EQ(started, 1);
  EXPECT_EQ(dropped, (std::vector<std::size_t>{8}));
}

}  // namespace
}  // namespace harness::core
