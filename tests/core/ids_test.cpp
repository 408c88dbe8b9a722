#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

#include "harness/core/ids.hpp"

namespace harness::core {
namespace {

TEST(Ids, HavePrefixFixedLengthAndDoNotRepeat) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    auto id = make_id("task_");
    ASSERT_EQ(id.size(), 5u + 24u);
    ASSERT_EQ(id.rfind("task_", 0), 0u);
    ASSERT_TRUE(is_safe_id(id));
    ASSERT_TRUE(seen.insert(id).second) << "duplicate id " << id;
  }
}

// Many times the per-thread pool of random bytes, on two threads at once.
TEST(Ids, AcrossRefillsAndThreadsNoIdRepeats) {
  std::vector<std::string> a, b;
  std::thread other([&] {
    for (int i = 0; i < 3000; ++i) b.push_back(make_id("s_"));
  });
  for (int i = 0; i < 3000; ++i) a.push_back(make_id("s_"));
  other.join();
  std::set<std::string> seen(a.begin(), a.end());
  seen.insert(b.begin(), b.end());
  EXPECT_EQ(seen.size(), 6000u);
  // Every hex digit shows up in every position over that many ids (a stuck byte would not).
  for (std::size_t pos = 2; pos < 26; ++pos) {
    std::set<char> digits;
    for (const auto& id : a) digits.insert(id[pos]);
    EXPECT_EQ(digits.size(), 16u) << "position " << pos;
  }
}

TEST(Ids, SafeIdRejectsPathAndControlCharacters) {
  EXPECT_TRUE(is_safe_id("user.name-1_2"));
  EXPECT_FALSE(is_safe_id(""));
  EXPECT_FALSE(is_safe_id("../etc"));
  EXPECT_FALSE(is_safe_id("a b"));
  EXPECT_FALSE(is_safe_id(std::string(129, 'a')));
  EXPECT_FALSE(is_safe_id("abc", 2));
}

}  // namespace
}  // namespace harness::core
