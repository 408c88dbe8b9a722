// The migration runner on in-memory databases with hand-made migration lists.
#include <array>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "migrations.hpp"
#include "sqlite_open.hpp"

#include "harness/store/errors.hpp"

namespace harness::store::detail {
namespace {

std::unique_ptr<connection> memory_db() {
  return connection::open(":memory:").value();
}

std::int64_t scalar(connection& db, std::string_view sql) {
  auto st = db.prepare(sql);
  EXPECT_TRUE(st);
  EXPECT_EQ(st->step(), SQLITE_ROW);
  return st->int64(0);
}

constexpr std::array<migration, 2> two = {{
    {1, "one", "CREATE TABLE a (x INTEGER)"},
    {2, "two", "CREATE TABLE b (y INTEGER)"},
}};

TEST(Migrations, BuiltinListIsNumberedWithoutGaps) {
  auto list = builtin_migrations();
  ASSERT_FALSE(list.empty());
  for (std::size_t i = 0; i < list.size(); ++i) EXPECT_EQ(list[i].version, static_cast<int>(i + 1));
}

TEST(Migrations, AppliesEachOnceAndRecordsIt) {
  auto db = memory_db();
  auto v = migrate(*db, two, 42);
  ASSERT_TRUE(v) << v.error().describe();
  EXPECT_EQ(*v, 2);
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM schema_migrations"), 2);
  EXPECT_EQ(scalar(*db, "SELECT applied_ms FROM schema_migrations WHERE version = 2"), 42);
  // Running again applies nothing (a second CREATE TABLE a would fail).
  auto again = migrate(*db, two, 43);
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM schema_migrations"), 2);
}

TEST(Migrations, UpgradesFromAnOlderVersion) {
  auto db = memory_db();
  ASSERT_TRUE(migrate(*db, std::span(two).first(1), 1));
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM sqlite_schema WHERE name = 'b'"), 0);
  auto v = migrate(*db, two, 2);
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, 2);
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM sqlite_schema WHERE name = 'b'"), 1);
}

TEST(Migrations, AFailingMigrationIsRolledBackWhole) {
  // Version 2 creates a table and then fails: the table must not stay behind.
  constexpr std::array<migration, 2> broken = {{
      {1, "one", "CREATE TABLE a (x INTEGER)"},
      {2, "half", "CREATE TABLE c (z INTEGER); INSERT INTO no_such_table VALUES (1)"},
  }};
  auto db = memory_db();
  auto v = migrate(*db, broken, 1);
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().code, harness::store::errc::migration_failed);
  EXPECT_NE(v.error().message.find("migration 2 (half)"), std::string::npos) << v.error().message;
  EXPECT_NE(v.error().message.find("no_such_table"), std::string::npos) << v.error().message;
  EXPECT_EQ(scalar(*db, "SELECT max(version) FROM schema_migrations"), 1);
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM sqlite_schema WHERE name = 'c'"), 0);
}

TEST(Migrations, ANewerDatabaseIsRefusedUntouched) {
  auto db = memory_db();
  ASSERT_TRUE(migrate(*db, two, 1));
  auto v = migrate(*db, std::span(two).first(1), 2);
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().code, harness::store::errc::too_new);
  EXPECT_NE(v.error().message.find("version 2"), std::string::npos) << v.error().message;
  EXPECT_FALSE(v.error().hint.empty());
}

TEST(Migrations, ADatabaseOfAnotherProgramIsRefused) {
  auto db = memory_db();
  ASSERT_TRUE(db->exec("CREATE TABLE customers (id INTEGER)", "setup"));
  auto v = migrate(*db, two, 1);
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().code, harness::store::errc::open_failed);
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM sqlite_schema WHERE name = 'schema_migrations'"), 0);
}

}  // namespace
}  // namespace harness::store::detail
