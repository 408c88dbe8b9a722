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
  EXPECT_EQ(other.error(), user_refusal::user_not_allowed);
  auto missing = resolve_user(team, std::nullopt);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error(), user_refusal::user_required);
  EXPECT_EQ(resolve_user(admin, std::nullopt).error(), user_refusal::user_required);

  auto e = to_error(user_refusal::user_not_allowed, alice, "bob");
  EXPECT_EQ(e.code, "user_not_allowed");
  EXPECT_NE(e.message.find("key_1"), std::string::npos);
  EXPECT_NE(e.message.find("bob"), std::string::npos);
  EXPECT_EQ(to_error(user_refusal::user_required, team).code, "user_required");
}

}  // namespace
}  // namespace harness::auth
