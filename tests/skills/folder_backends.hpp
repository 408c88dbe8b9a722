// The two places the skill library and the workspace store keep files: the
// host's disk and PostgreSQL rows (a fresh database per test from
// support/postgres_server). The contract tests run on both; what they place
// or age by hand goes through the helpers here.
#pragma once

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "harness/skills/file_folders.hpp"
#include "harness/store/pg_files.hpp"
#include "support/postgres_server.hpp"

namespace harness::skills::testing {

enum class backend { disk, postgres };

inline std::string backend_name(backend b) {
  return b == backend::disk ? "Disk" : "Postgres";
}

inline const auto all_backends = ::testing::Values(backend::disk, backend::postgres);

class folder_backend {
 public:
  explicit folder_backend(backend kind) : kind_(kind) {}

  backend kind() const { return kind_; }

  // The folders of `kind` ("skills" or "workspace"); on disk below `disk_root`.
  std::shared_ptr<folder_set> open(std::string_view kind, const std::filesystem::path& disk_root) {
    if (kind_ == backend::disk) return disk_folders(disk_root, "TEST_DIR");
    if (url_.empty()) url_ = harness::testing::postgres_server::shared().create_database();
    auto folders = store::open_pg_folders(url_, kind);
    if (!folders) throw std::runtime_error(folders.error().describe());
    return *folders;
  }

  // Makes `rel` of `owner` (every file when empty) `by` older than now.
  void age(std::string_view kind, const std::filesystem::path& disk_root, const std::string& owner,
           const std::string& rel, std::chrono::hours by) const {
    namespace fs = std::filesystem;
    if (kind_ == backend::disk) {
      auto when = fs::file_time_type::clock::now() - by;
      fs::path dir = disk_root / owner;
      if (!rel.empty()) return fs::last_write_time(dir / rel, when);
      for (const auto& entry : fs::recursive_directory_iterator(dir)) fs::last_write_time(entry.path(), when);
      fs::last_write_time(dir, when);
      return;
    }
    auto ms = std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(by).count());
    std::string kind_text(kind);
    const char* values[] = {kind_text.c_str(), owner.c_str(), rel.c_str(), ms.c_str()};
    PGconn* conn = PQconnectdb(url_.c_str());
    PGresult* r = PQexecParams(conn,
                               "UPDATE files SET modified_ms = (extract(epoch from now()) * 1000)::bigint - $4::bigint "
                               "WHERE kind = $1 AND owner = $2 AND ($3 = '' OR path = $3)",
                               4, nullptr, values, nullptr, nullptr, 0);
    EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQerrorMessage(conn);
    PQclear(r);
    PQfinish(conn);
  }

 private:
  backend kind_;
  std::string url_;  // the test's database, made on first use
};

// A contract fixture `Base` (with a pure `backend backend_kind() const`) run
// on every backend (value-parameterised), or on disk only.
template <class Base>
class on_each_backend : public Base, public ::testing::WithParamInterface<backend> {
 protected:
  backend backend_kind() const override { return this->GetParam(); }
};

template <class Base>
class on_disk_only : public Base {
 protected:
  backend backend_kind() const override { return backend::disk; }
};

// Writes a file past every rule (as someone with access to the storage could).
inline void place(folder_set& folders, const std::string& owner, const std::string& rel, const std::string& text) {
  folders.change(owner, [&](file_folder& folder) {
    auto written = folder.write_file(rel, text);
    EXPECT_TRUE(written) << written.error().describe();
    return apply_report{};
  });
}

// The paths of `owner`'s files.
inline std::vector<std::string> stored_paths(const folder_set& folders, const std::string& owner) {
  std::vector<std::string> out;
  auto files = folders.open(owner)->scan();
  EXPECT_TRUE(files) << files.error().describe();
  if (files) {
    for (const auto& [path, file] : *files) out.push_back(path);
  }
  return out;
}

// Whether `owner` has a file at `rel` or below it.
inline bool holds(const folder_set& folders, const std::string& owner, const std::string& rel) {
  for (const auto& path : stored_paths(folders, owner)) {
    if (path == rel || path.starts_with(rel + "/")) return true;
  }
  return false;
}

}  // namespace harness::skills::testing
