// The connection wrapper: binding, statement reuse and error mapping.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "sqlite_db.hpp"

#include "harness/store/errors.hpp"

namespace harness::store::detail {
namespace {

TEST(SqliteDb, AStatementIsResetAndReusableAfterEachBorrow) {
  auto db = connection::open(":memory:").value();
  ASSERT_TRUE(db->exec("CREATE TABLE t (v TEXT NOT NULL)", "setup"));
  for (const char* v : {"one", "two"}) {
    auto st = db->prepare("INSERT INTO t (v) VALUES (?1)");
    ASSERT_TRUE(st);
    st->bind(1, std::string_view(v));
    ASSERT_TRUE(st->run("insert"));
  }
  auto count = db->prepare("SELECT count(*), group_concat(v) FROM t");
  ASSERT_TRUE(count);
  ASSERT_EQ(count->step(), SQLITE_ROW);
  EXPECT_EQ(count->int64(0), 2);
  EXPECT_EQ(count->text(1), "one,two");
}

TEST(SqliteDb, AnOversizedValueIsReportedAsSuchNotAsAConstraint) {
  auto db = connection::open(":memory:").value();
  ASSERT_TRUE(db->exec("CREATE TABLE t (a TEXT NOT NULL, b INTEGER NOT NULL)", "setup"));
  sqlite3_limit(db->handle(), SQLITE_LIMIT_LENGTH, 100);
  auto st = db->prepare("INSERT INTO t (a, b) VALUES (?1, ?2)");
  ASSERT_TRUE(st);
  st->bind(1, std::string(1000, 'x')).bind(2, std::int64_t{1});  // the second bind succeeds after the failed one
  auto r = st->run("cannot insert");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, harness::store::errc::error);
  EXPECT_NE(r.error().message.find("too big"), std::string::npos) << r.error().message;
}

TEST(SqliteDb, ErrorsAreMappedToStoreCodes) {
  auto db = connection::open(":memory:").value();
  auto bad = db->exec("SELECT * FROM no_such_table", "cannot select");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, harness::store::errc::error);
  EXPECT_NE(bad.error().message.find("cannot select: no such table: no_such_table"), std::string::npos)
      << bad.error().message;
  EXPECT_EQ(sqlite_failure(nullptr, SQLITE_FULL, "x").code, harness::store::errc::disk_full);
  EXPECT_EQ(sqlite_failure(nullptr, SQLITE_BUSY, "x").code, harness::store::errc::busy);
  EXPECT_EQ(sqlite_failure(nullptr, SQLITE_IOERR_WRITE, "x").code, harness::store::errc::io_error);
  EXPECT_EQ(sqlite_failure(nullptr, SQLITE_READONLY, "x").code, harness::store::errc::read_only);
  EXPECT_EQ(sqlite_failure(nullptr, SQLITE_CORRUPT, "x").code, harness::store::errc::corrupt);
  EXPECT_FALSE(sqlite_failure(nullptr, SQLITE_FULL, "x").hint.empty());
}

TEST(SqliteDb, JsonDumpNeverThrowsOnInvalidUtf8) {
  EXPECT_EQ(dump_json(std::string("a\xff")), "\"a\xEF\xBF\xBD\"");
  EXPECT_EQ(dump_json(nlohmann::json::object({{"k", std::string("\xc3")}})), "{\"k\":\"\xEF\xBF\xBD\"}");
}

}  // namespace
}  // namespace harness::store::detail
