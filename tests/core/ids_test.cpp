#include <gtest/gtest.h>

#include <set>

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
