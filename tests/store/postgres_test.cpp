// The PostgreSQL backend where it differs from SQLite: several replicas (store
// objects) share one database on a real server (support/postgres_server).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include "store_test_support.hpp"

#include "harness/store/errors.hpp"
#include "harness/store/store_config.hpp"

namespace harness::store {
namespace {

using harness::testing::postgres_server;
using testing::sample_task;

// Runs one SQL statement on `url` directly (as an operator would) and returns
// the first column of its first row, or "" when it returns no row.
std::string sql(const std::string& url, const std::string& statement) {
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn(PQconnectdb(url.c_str()), &PQfinish);
  EXPECT_EQ(PQstatus(conn.get()), CONNECTION_OK) << PQerrorMessage(conn.get());
  std::unique_ptr<PGresult, decltype(&PQclear)> r(PQexec(conn.get(), statement.c_str()), &PQclear);
  const auto st = PQresultStatus(r.get());
  EXPECT_TRUE(st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) << statement << ": " << PQresultErrorMessage(r.get());
  if (st != PGRES_TUPLES_OK || PQntuples(r.get()) == 0) return {};
  return PQgetvalue(r.get(), 0, 0);
}

std::shared_ptr<blocking_task_store> open_ok(const std::string& url) {
  auto store = open_blocking_postgres_store(url);
  EXPECT_TRUE(store) << store.error().describe();
  return store ? *store : nullptr;
}

// Collects the task ids a watcher reports; waits for one with a generous timeout.
class change_log {
 public:
  std::function<void(const std::string&)> callback() {
    return [this](const std::string& id) {
      std::lock_guard lock(mutex_);
      seen_.push_back(id);
      cv_.notify_all();
    };
  }
  bool wait_for(const std::string& id) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, std::chrono::seconds(30), [&] {
      for (auto it = seen_.begin(); it != seen_.end(); ++it) {
        if (*it == id) {
          seen_.erase(seen_.begin(), it + 1);
          return true;
        }
      }
      return false;
    });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::string> seen_;
};

// Two store objects on one database, as two replicas of the server have.
class PostgresStoreReplicas : public ::testing::Test {
 protected:
  void SetUp() override {
    url = postgres_server::shared().create_database();
    a = open_ok(url);
    b = open_ok(url);
    ASSERT_TRUE(a && b);
  }
  std::string url;
  std::shared_ptr<blocking_task_store> a, b;
};

TEST(PostgresStore, MigratesAnEmptyDatabaseOnceAndASecondOpenDoesNotMigrateAgain) {
  const auto url = postgres_server::shared().create_database();
  auto first = open_ok(url);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->schema_version(), latest_schema_version());
  EXPECT_EQ(sql(url, "SELECT count(*) FROM schema_migrations"), std::to_string(latest_schema_version()));
  const auto applied = sql(url, "SELECT string_agg(applied_ms::text, ',' ORDER BY version) FROM schema_migrations");
  auto second = open_ok(url);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->schema_version(), latest_schema_version());
  EXPECT_EQ(sql(url, "SELECT string_agg(applied_ms::text, ',' ORDER BY version) FROM schema_migrations"), applied);
}

TEST(PostgresStore, ReplicasStartingTogetherMigrateOnce) {
  const auto url = postgres_server::shared().create_database();
  std::vector<std::thread> threads;
  std::atomic<int> opened = 0;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      if (open_blocking_postgres_store(url)) ++opened;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(opened, 4);
  EXPECT_EQ(sql(url, "SELECT count(*) FROM schema_migrations"), std::to_string(latest_schema_version()));
}

TEST(PostgresStore, ANewerSchemaOrAnotherProgramsTablesAreRefused) {
  const auto newer = postgres_server::shared().create_database();
  ASSERT_TRUE(open_ok(newer));
  sql(newer, "INSERT INTO schema_migrations (version, name, applied_ms) VALUES (999, 'future', 1)");
  auto too_new = open_blocking_postgres_store(newer);
  ASSERT_FALSE(too_new);
  EXPECT_EQ(too_new.error().code, errc::too_new);
  EXPECT_NE(too_new.error().message.find("999"), std::string::npos) << too_new.error().message;

  const auto foreign = postgres_server::shared().create_database();
  sql(foreign, "CREATE TABLE invoices (id int)");
  auto theirs = open_blocking_postgres_store(foreign);
  ASSERT_FALSE(theirs);
  EXPECT_EQ(theirs.error().code, errc::open_failed);
  EXPECT_EQ(sql(foreign, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'tasks'"), "0");
}

TEST(PostgresStore, AWrongDatabaseOrAnUnreachableServerIsOpenFailedWithoutThePassword) {
  const auto folder = postgres_server::shared().socket_folder().string();
  for (const auto& url : {"postgresql://postgres:s3cr3t-pw@/no_such_db?host=" + folder,
                          std::string("postgres://postgres:s3cr3t-pw@/db?host=/nonexistent-folder&connect_timeout=5"),
                          std::string("postgresql:///db?host=") + folder + "&user=nobody&password=s3cr3t-pw"}) {
    auto store = open_blocking_postgres_store(url);
    ASSERT_FALSE(store) << url;
    EXPECT_EQ(store.error().code, errc::open_failed) << store.error().describe();
    EXPECT_EQ(store.error().describe().find("s3cr3t-pw"), std::string::npos) << store.error().describe();
    EXPECT_NE(store.error().message.find("postgresql://"), std::string::npos) << store.error().message;
  }
}

TEST(PostgresStore, AMalformedUrlIsOpenFailedWithoutQuotingIt) {
  // libpq's own parse message would quote the bad token, the password here.
  auto store = open_blocking_postgres_store("postgresql://postgres:s3cr3t%zz-pw@/db?host=/nonexistent-folder");
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, errc::open_failed) << store.error().describe();
  EXPECT_EQ(store.error().describe().find("s3cr3t"), std::string::npos) << store.error().describe();
  EXPECT_NE(store.error().message.find("not a valid"), std::string::npos) << store.error().message;
}

TEST(PostgresStore, IdsReadBackWhateverTheDatabasesByteaOutput) {
  const auto url = postgres_server::shared().create_database();
  const auto db = url.substr(url.find(":///") + 4, url.find('?') - url.find(":///") - 4);
  sql(url, "ALTER DATABASE " + db + " SET bytea_output = 'escape'");
  auto store = open_blocking_postgres_store(url);
  ASSERT_TRUE(store) << store.error().describe();
  ASSERT_TRUE((*store)->create_task(sample_task("task_1", "alice")));
  auto read = (*store)->get_task("task_1");
  ASSERT_TRUE(read && *read);
  EXPECT_EQ((*read)->user_id, "alice");
}

TEST(PostgresStore, OpenBlockingStoreFollowsStoreUrl) {
  store_config config;
  config.url = postgres_server::shared().create_database();
  auto store = open_blocking_store(config);
  ASSERT_TRUE(store) << store.error().describe();
  EXPECT_EQ((*store)->health().detail["backend"], "postgresql");
  EXPECT_TRUE((*store)->shared());
}

TEST_F(PostgresStoreReplicas, TwoReplicasRacingForTheLastSlotsNeverExceedTheLimit) {
  constexpr std::size_t limit = 5;
  std::atomic<int> created = 0, refused = 0, other = 0;
  auto race = [&](blocking_task_store& store, const std::string& prefix) {
    for (int i = 0; i < 20; ++i) {
      auto r = store.create_task_limited(sample_task(prefix + std::to_string(i)), limit);
      if (r) {
        ++created;
      } else if (r.error().code == errc::user_limit) {
        ++refused;
      } else {
        ++other;
      }
    }
  };
  std::thread ta([&] { race(*a, "task_a"); });
  std::thread tb([&] { race(*b, "task_b"); });
  ta.join();
  tb.join();
  EXPECT_EQ(created, static_cast<int>(limit));
  EXPECT_EQ(refused, 40 - static_cast<int>(limit));
  EXPECT_EQ(other, 0);
  EXPECT_EQ(a->list_tasks({.user_id = "alice"}).value().size(), limit);
}

TEST_F(PostgresStoreReplicas, AWatcherOnOneReplicaSeesTheChangesOfAnother) {
  change_log log;
  ASSERT_TRUE(b->watch_changes(log.callback()));
  EXPECT_FALSE(b->watch_changes(log.callback())) << "one watcher per store";

  auto t = sample_task("task_\xff odd id");  // ids are bytes; the payload carries them exactly
  ASSERT_TRUE(a->create_task(t));
  ASSERT_TRUE(a->append_event({t.id, 1, "log", "hello", 5}));
  EXPECT_TRUE(log.wait_for(t.id)) << "append_event";
  t.status = task_status::running;
  ASSERT_TRUE(a->update_task(t));
  EXPECT_TRUE(log.wait_for(t.id)) << "update_task";
  ASSERT_TRUE(a->mark_interrupted(1));  // no lease: taken
  EXPECT_TRUE(log.wait_for(t.id)) << "mark_interrupted";
  EXPECT_FALSE(a->update_task(sample_task("task_missing"))) << "nothing to notify";
}

TEST_F(PostgresStoreReplicas, AWatcherReconnectsAfterItsConnectionDiesAndSaysChangesMayBeMissed) {
  change_log log;
  ASSERT_TRUE(b->watch_changes(log.callback()));
  // An operator (or a failover) ends the watcher's session.
  sql(url,
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> "
      "pg_backend_pid()");
  EXPECT_TRUE(log.wait_for("")) << "no on_change(\"\") after the reconnect";
  ASSERT_TRUE(a->create_task(sample_task("task_1")));
  ASSERT_TRUE(a->append_event({"task_1", 1, "log", "after", 5}));
  EXPECT_TRUE(log.wait_for("task_1"));
}

TEST(PostgresStore, AStoreWhoseConnectionWasKilledReconnects) {
  const auto url = postgres_server::shared().create_database();
  auto a = open_ok(url);
  ASSERT_TRUE(a);
  ASSERT_TRUE(a->create_task(sample_task("task_1")));
  sql(url,
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> "
      "pg_backend_pid()");
  // The call that finds the connection dead fails with a storage error; a later one reconnects.
  bool recovered = false;
  for (int i = 0; i < 3 && !recovered; ++i) {
    auto got = a->get_task("task_1");
    if (got) {
      recovered = got->has_value();
    } else {
      EXPECT_EQ(got.error().code, errc::io_error) << got.error().describe();
    }
  }
  EXPECT_TRUE(recovered);
  EXPECT_TRUE(a->health().up);
}

TEST_F(PostgresStoreReplicas, MarkInterruptedFromAnotherReplicaWaitsForTheLease) {
  auto t = sample_task("task_1");
  t.status = task_status::running;
  t.owner = "replica-a";
  t.lease_until_ms = 10000;
  ASSERT_TRUE(a->create_task(t));
  EXPECT_TRUE(b->mark_interrupted(9000, "replica-b").value().empty()) << "A's lease still runs";
  ASSERT_EQ(a->renew_leases("replica-a", 20000).value(), 1u);
  EXPECT_TRUE(b->mark_interrupted(15000, "replica-b").value().empty()) << "A renewed it";
  EXPECT_EQ(b->mark_interrupted(20001, "replica-b").value(), std::vector<std::string>{"task_1"});
  EXPECT_EQ(a->get_task("task_1").value()->status, task_status::interrupted);
}

TEST(PostgresStore, PlainStringsAreByteaSoNulAndInvalidUtf8SurviveAndOrderIsByteWise) {
  const auto url = postgres_server::shared().create_database();
  auto store = open_ok(url);
  ASSERT_TRUE(store);
  for (const char* id : {"task_B", "task_a", "task_\xc3\xa9", "task_Z"}) {
    ASSERT_TRUE(store->create_task(sample_task(id, std::string("u\0ser", 5), 100)));
  }
  auto listed = store->list_tasks({.user_id = std::string("u\0ser", 5)}).value();
  std::vector<std::string> ids;
  for (const auto& t : listed) ids.push_back(t.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"task_\xc3\xa9", "task_a", "task_Z", "task_B"})) << "SQLite's memcmp order";
}

}  // namespace
}  // namespace harness::store
