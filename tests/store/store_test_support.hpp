// Shared by the store tests: sample records and a temporary folder.
#pragma once

#include <filesystem>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "harness/store/task_store.hpp"
#include "support/postgres_server.hpp"

namespace harness::store::testing {

inline task_record sample_task(const std::string& id, const std::string& user = "alice", std::int64_t created = 1000) {
  task_record t;
  t.id = id;
  t.user_id = user;
  t.conversation_id = "conv_" + id;
  t.task = "sum the invoices of " + user;
  t.mode = "async";
  t.status = task_status::queued;
  t.created_ms = created;
  return t;
}

inline std::shared_ptr<blocking_task_store> open_in_memory() {
  auto store = open_blocking_sqlite_store(":memory:");
  if (!store) ADD_FAILURE() << store.error().code << ": " << store.error().describe();
  return store ? *store : nullptr;
}

// A new, empty database on this process's PostgreSQL server (started on first
// use; throws, failing the test, when PostgreSQL is missing).
inline std::shared_ptr<blocking_task_store> open_postgres() {
  auto store = open_blocking_postgres_store(harness::testing::postgres_server::shared().create_database());
  if (!store) ADD_FAILURE() << store.error().code << ": " << store.error().describe();
  return store ? *store : nullptr;
}

// The backends every contract test runs on, by name ("sqlite", "postgresql").
inline std::shared_ptr<blocking_task_store> open_backend(const std::string& backend) {
  return backend == "postgresql" ? open_postgres() : open_in_memory();
}

// A fresh folder under the system temp folder, removed with everything in it.
class temp_folder {
 public:
  temp_folder() {
    std::random_device rd;
    path_ =
        std::filesystem::temp_directory_path() / ("harness_store_test_" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~temp_folder() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  temp_folder(const temp_folder&) = delete;
  temp_folder& operator=(const temp_folder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace harness::store::testing
