#include <gtest/gtest.h>

#include "harness/auth/caller.hpp"

namespace harness::auth {
namespace {

const caller alice{"key_1", "", {"alice"}, false};
const caller team{"key_2", "team", {"alice", "bob"}, false};
const caller admin{"key_3", "ops", {}, true};

TEST(Caller, UserKeyActsOnlyForItsUsers) {
  EXPECT_TRUE(may_act_for(alice, "alice"));
  EXPECT_FALSE(may_act_for(alice, "bob"));
  EXPECT_FALSE(may_act_for(alice, "Alice"));
  EXPECT_TRUE(may_act_for(team, "bob"));
  EXPECT_TRUE(may_act_for(admin, "anyone"));
  EXPECT_TRUE(may_act_for(open_caller(), "anyone"));
}

TEST(Caller, ResolveUserDefaultsToTheOnlyUser) {
  EXPECT_EQ(resolve_user(alice, std::nullopt).value(), "alice");
  EXPECT_EQ(resolve_user(alice, "alice").value(), "alice");
  EXPECT_EQ(resolve_user(admin, "carol").value(), "carol");
  caller admin_with_default{"key_4", "", {"ops"}, true};
  EXPECT_EQ(resolve_user(admin_with_default, std::nullopt).value(), "ops");
}

TEST(Caller, ResolveUserRefusals) {
  auto other = resolve_user(alice, "bob");
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().code, errc::user_not_allowed);
  EXPECT_EQ(other.error().code.http_status(), 403u);
  EXPECT_NE(other.error().message.find("key_1"), std::string::npos);
  EXPECT_NE(other.error().message.find("bob"), std::string::npos);
  auto missing = resolve_user(team, std::nullopt);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, errc::user_required);
  EXPECT_EQ(missing.error().code.http_status(), 400u);
  EXPECT_EQ(resolve_user(admin, std::nullopt).error().code, errc::user_required);
  EXPECT_EQ(resolve_user(open_caller(), std::nullopt).error().code, errc::user_required);
}

TEST(Caller, LogIdNeverEmpty) {
  EXPECT_EQ(log_id(alice), "key_1");
  EXPECT_EQ(log_id(open_caller()), "-");
}

}  // namespace
}  // namespace harness::auth
