// The hot queries use their indexes and never sort in a temporary b-tree.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "sqlite_open.hpp"
#include "task_sql.hpp"

namespace harness::store::detail {
namespace {

std::string plan_of(std::string_view sql) {
  auto opened = open_database(":memory:", builtin_migrations(), 0);
  EXPECT_TRUE(opened) << opened.error().describe();
  std::string text = "EXPLAIN QUERY PLAN " + std::string(sql);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(opened->db->handle(), text.c_str(), -1, &st, nullptr), SQLITE_OK);
  std::string plan;
  while (sqlite3_step(st) == SQLITE_ROW) {
    plan += reinterpret_cast<const char*>(sqlite3_column_text(st, 3));
    plan += "\n";
  }
  sqlite3_finalize(st);
  return plan;
}

TEST(QueryPlan, ListingAUsersTasksWalksTheUserIndexInOrder) {
  auto plan = plan_of(list_user_sql);
  EXPECT_NE(plan.find("USING INDEX tasks_by_user_created (user_id=?"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("TEMP B-TREE"), std::string::npos) << plan;
}

TEST(QueryPlan, ListingEveryonesTasksWalksTheCreatedIndexInOrder) {
  auto plan = plan_of(list_all_sql);
  EXPECT_NE(plan.find("tasks_by_created"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("TEMP B-TREE"), std::string::npos) << plan;
}

TEST(QueryPlan, EventsAfterASeqIsOneRangeOfThePrimaryKey) {
  auto plan = plan_of(events_after_sql);
  EXPECT_NE(plan.find("USING PRIMARY KEY (task_id=? AND seq>?)"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("TEMP B-TREE"), std::string::npos) << plan;
}

TEST(QueryPlan, UsageOfAUserUsesItsIndex) {
  auto plan = plan_of(usage_user_sql);
  EXPECT_NE(plan.find("usage_by_user_at (user_id=? AND at_ms>?)"), std::string::npos) << plan;
}

}  // namespace
}  // namespace harness::store::detail
