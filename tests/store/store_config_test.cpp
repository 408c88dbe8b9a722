// STORE_PATH / TASK_RETENTION_HOURS / VAULT_RETENTION, retention and the health source.
#include <gtest/gtest.h>

#include "harness/store/store_config.hpp"
#include "harness/store/store_health.hpp"
#include "store_test_support.hpp"

namespace harness::store {
namespace {

core::settings resolve(std::map<std::string, std::string> env) {
  auto specs = store_setting_specs();
  core::setting_sources sources;
  sources.env = std::move(env);
  return core::settings::resolve(specs, sources).value();
}

TEST(StoreConfig, DefaultsKeepEverythingUnderData) {
  auto c = load_store_config(resolve({}));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->path, std::filesystem::path("data/harness.db"));
  EXPECT_EQ(c->retention.count(), 0);
}

TEST(StoreConfig, ReadsPathAndRetention) {
  auto c = load_store_config(resolve({{"STORE_PATH", "/var/lib/harness/tasks.db"}, {"TASK_RETENTION_HOURS", "72"}}));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->path, std::filesystem::path("/var/lib/harness/tasks.db"));
  EXPECT_EQ(c->retention.count(), 72);
}

TEST(StoreConfig, VaultRetentionIsADurationWithAUnit) {
  EXPECT_EQ(load_store_config(resolve({}))->vault_retention.count(), 0);
  EXPECT_EQ(load_store_config(resolve({{"VAULT_RETENTION", "90m"}}))->vault_retention.count(), 90);
  EXPECT_EQ(load_store_config(resolve({{"VAULT_RETENTION", "12h"}}))->vault_retention.count(), 12 * 60);
  EXPECT_EQ(load_store_config(resolve({{"VAULT_RETENTION", "30d"}}))->vault_retention.count(), 30 * 24 * 60);
  for (const char* bad : {"30", "0d", "-1h", "1.5h", "h", "10w", "999999999d"}) {
    auto c = load_store_config(resolve({{"VAULT_RETENTION", bad}}));
    ASSERT_FALSE(c) << bad;
    EXPECT_NE(c.error().message.find("VAULT_RETENTION"), std::string::npos);
    EXPECT_NE(c.error().hint.find("30d"), std::string::npos);
  }
}

TEST(StoreConfig, InvalidValuesNameTheSetting) {
  for (const char* bad : {"-1", "soon", "1.5"}) {
    auto c = load_store_config(resolve({{"TASK_RETENTION_HOURS", bad}}));
    ASSERT_FALSE(c) << bad;
    EXPECT_EQ(c.error().code, harness::core::errc::invalid_setting);
    EXPECT_NE(c.error().message.find("TASK_RETENTION_HOURS"), std::string::npos);
  }
  for (const char* bad : {"", "data/"}) {
    auto c = load_store_config(resolve({{"STORE_PATH", bad}}));
    ASSERT_FALSE(c) << bad;
    EXPECT_NE(c.error().message.find("STORE_PATH"), std::string::npos);
  }
}

TEST(StoreConfig, StoreUrlSelectsPostgresqlAndOnlyPostgresql) {
  EXPECT_EQ(load_store_config(resolve({}))->url, "");
  for (const char* good : {"postgresql://u@db.internal:5432/harness", "postgres:///harness?host=/run/pg"}) {
    auto c = load_store_config(resolve({{"STORE_URL", good}}));
    ASSERT_TRUE(c) << good;
    EXPECT_EQ(c->url, good);
  }
  for (const char* bad : {"mysql://u:hunter2@db/x", "sqlite:data/harness.db", "data/harness.db"}) {
    auto c = load_store_config(resolve({{"STORE_URL", bad}}));
    ASSERT_FALSE(c) << bad;
    EXPECT_EQ(c.error().code, harness::core::errc::invalid_setting);
    EXPECT_NE(c.error().message.find("STORE_URL"), std::string::npos);
    EXPECT_NE(c.error().hint.find("postgresql://"), std::string::npos);
    EXPECT_EQ(c.error().message.find("hunter2"), std::string::npos) << "never the password";
  }
  store_config config;
  config.url = "postgresql://harness:hunter2@db.internal:5432/tasks";
  EXPECT_EQ(describe_store(config), "postgresql postgresql://harness@db.internal:5432/tasks");
}

TEST(StoreConfig, ApplyRetentionDeletesOnlyTasksOlderThanTheWindow) {
  auto store = testing::open_in_memory();
  const std::int64_t hour = 3600 * 1000;
  const std::int64_t now = 100 * hour;
  auto old_task = testing::sample_task("task_old");
  old_task.status = task_status::succeeded;
  old_task.finished_ms = now - 25 * hour;
  auto recent = testing::sample_task("task_recent");
  recent.status = task_status::succeeded;
  recent.finished_ms = now - 23 * hour;
  ASSERT_TRUE(store->create_task(old_task));
  ASSERT_TRUE(store->create_task(recent));

  store_config keep_forever;
  auto none = apply_retention(*store, keep_forever, now);
  ASSERT_TRUE(none);
  EXPECT_EQ(*none, 0u);

  store_config day{.path = "x.db", .retention = std::chrono::hours(24)};
  auto n = apply_retention(*store, day, now);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 1u);
  EXPECT_FALSE(store->get_task("task_old")->has_value());
  EXPECT_TRUE(store->get_task("task_recent")->has_value());
}

TEST(StoreHealth, IsRequiredAndShowsTheStoreState) {
  auto store = testing::open_in_memory();
  auto source = store_health(run_on_store_thread(store));
  EXPECT_EQ(source->name(), "store");
  auto h = source->check();
  EXPECT_TRUE(h.up);
  EXPECT_TRUE(h.required);
  EXPECT_EQ(h.detail["backend"], "sqlite");
  EXPECT_EQ(h.detail["path"], ":memory:");
}

}  // namespace
}  // namespace harness::store
