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

// The plan of `sql` names `index_use` and does not sort rows in a temporary b-tree.
void expect_plan(std::string_view sql, const std::string& index_use) {
  auto plan = plan_of(sql);
  EXPECT_NE(plan.find(index_use), std::string::npos) << plan;
  EXPECT_EQ(plan.find("TEMP B-TREE FOR ORDER BY"), std::string::npos) << plan;
}

TEST(QueryPlan, ListingAUsersTasksWalksTheUserIndexInOrder) {
  expect_plan(list_user_sql, "USING INDEX tasks_by_user_created (user_id=?");
}

TEST(QueryPlan, ListingEveryonesTasksWalksTheCreatedIndexInOrder) {
  expect_plan(list_all_sql, "tasks_by_created");
}

TEST(QueryPlan, EventsAfterASeqIsOneRangeOfThePrimaryKey) {
  expect_plan(events_after_sql, "USING PRIMARY KEY (task_id=? AND seq>?)");
}

TEST(QueryPlan, UsageOfAUserUsesItsIndex) {
  expect_plan(usage_user_sql, "usage_by_user_at (user_id=? AND at_ms>?)");
}

}  // namespace
}  // namespace harness::store::detail
