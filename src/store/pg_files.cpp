// skills::folder_set over the `files` table (migration 7): one row per file,
// keyed by (kind, owner, path). Folders exist only through their files, so a
// folder that holds none is simply absent. A change runs in one transaction
// behind an advisory lock on (kind, owner): replicas writing to the same
// folder take turns, so the caps the body counts hold; a failed statement or
// commit rolls all of it back and the report says every change was refused.
#include "harness/store/pg_files.hpp"

#include <mutex>

#include <fmt/format.h>

#include "harness/core/logging.hpp"
#include "harness/skills/errors.hpp"
#include "pg_connection.hpp"
#include "pg_migrations.hpp"
#include "store_common.hpp"

namespace harness::store {
namespace {

using detail::pg_connection;
using detail::pg_params;
namespace fs = std::filesystem;

// One file at `$3`, or under it, or a file where one of its folders would be.
constexpr const char* conflict_sql =
    "SELECT 1 FROM files WHERE kind = $1 AND owner = $2 AND (starts_with(path, $3 || '/') OR starts_with($3, path "
    "|| '/')) LIMIT 1";

// A failure of the database as the skills component reports it.
error storage_failure(const error& e) {
  return make_error(skills::errc::storage_error, e.message,
                    e.hint.empty() ? "check that the PostgreSQL server of STORE_URL is up" : e.hint);
}

fs::file_time_type from_ms(std::int64_t ms) {
  auto sys = std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
  return std::chrono::time_point_cast<fs::file_time_type::duration>(std::chrono::file_clock::from_sys(sys));
}

std::int64_t to_ms(fs::file_time_type time) {
  auto sys = std::chrono::file_clock::to_sys(time);
  return std::chrono::duration_cast<std::chrono::milliseconds>(sys.time_since_epoch()).count();
}

class pg_folder_set;

// One owner's rows. Every statement goes through the set, under its mutex.
class pg_folder final : public skills::file_folder {
 public:
  pg_folder(const pg_folder_set& set, std::string owner) : set_(set), owner_(std::move(owner)) {}

  result<bool> exists() const override;
  result<skills::file_map> scan() const override;
  result<std::string> read_file(const std::string& rel, std::size_t max_bytes) const override;
  status write_file(const std::string& rel, std::string_view bytes) override;
  status remove_file(const std::string& rel) override;
  std::string where() const override;

  // The first failure of a statement (inside a change, the transaction is
  // then lost); set by hand to make every statement fail.
  const std::optional<error>& failure() const { return failure_; }
  void fail_with(error e) { failure_ = std::move(e); }

 private:
  result<detail::pg_rows> run(const char* sql, pg_params params, std::string_view what) const;
  pg_params key() const;
  // Whether a file sits under `rel` or where one of its folders would be.
  result<bool> conflicts(const std::string& rel) const;
  // path_conflict when conflicts(rel), else file_not_found.
  error missing(const std::string& rel) const;

  const pg_folder_set& set_;
  std::string owner_;
  mutable std::optional<error> failure_;
};

class pg_folder_set final : public skills::folder_set {
 public:
  pg_folder_set(std::unique_ptr<pg_connection> db, std::string kind) : db_(std::move(db)), kind_(std::move(kind)) {}

  std::unique_ptr<const skills::file_folder> open(const std::string& owner) const override {
    return std::make_unique<pg_folder>(*this, owner);
  }

  skills::apply_report change(const std::string& owner,
                              const std::function<skills::apply_report(skills::file_folder&)>& body) override {
    std::lock_guard lock(mutex_);
    pg_folder folder(*this, owner);
    skills::apply_report report;
    bool ran = false;
    auto done = db_->in_transaction<status>(
        [&]() -> status {
          if (auto locked = lock_owner(owner); !locked) return locked;
          ran = true;
          report = body(folder);
          if (folder.failure()) return *folder.failure();
          return {};
        },
        "cannot save the files");
    if (done) return report;
    auto why = storage_failure(done.error());
    core::log_error("{} files of {}: the change was rolled back: {}", kind_, owner, why.describe());
    if (!ran) {
      // Neither BEGIN nor the lock: the body still reports each entry (refused, with this error).
      folder.fail_with(why);
      report = body(folder);
    }
    refuse_applied(report, why);
    return report;
  }

  result<bool> remove(const std::string& owner, const std::string& sub) override {
    std::lock_guard lock(mutex_);
    auto rows = sub.empty() ? db_->exec("DELETE FROM files WHERE kind = $1 AND owner = $2",
                                        pg_params().text(kind_).text(owner), "cannot remove the files")
                            : db_->exec("DELETE FROM files WHERE kind = $1 AND owner = $2 AND starts_with(path, $3)",
                                        pg_params().text(kind_).text(owner).text(sub + "/"), "cannot remove the files");
    if (!rows) return storage_failure(rows.error());
    return sub.empty() || rows->changed() > 0;
  }

  std::size_t remove_older_than(fs::file_time_type cutoff) override {
    std::lock_guard lock(mutex_);
    const auto cutoff_ms = to_ms(cutoff);
    auto stale = db_->exec("SELECT owner FROM files WHERE kind = $1 GROUP BY owner HAVING max(modified_ms) < $2",
                           pg_params().text(kind_).int64(cutoff_ms), "cannot find old files");
    if (!stale) {
      core::log_warn("sweep of {} files: {}", kind_, stale.error().describe());
      return 0;
    }
    std::size_t removed = 0;
    for (int i = 0; i < stale->size(); ++i) {
      const auto owner = stale->text(i, 0);
      // Decided again behind the owner's lock: a write that came meanwhile keeps it.
      auto gone = db_->in_transaction<result<std::int64_t>>(
          [&]() -> result<std::int64_t> {
            if (auto locked = lock_owner(owner); !locked) return locked.error();
            auto rows = db_->exec(
                "DELETE FROM files WHERE kind = $1 AND owner = $2 AND NOT EXISTS (SELECT 1 FROM files WHERE kind = $1 "
                "AND owner = $2 AND modified_ms >= $3)",
                pg_params().text(kind_).text(owner).int64(cutoff_ms), "cannot remove old files");
            if (!rows) return rows.error();
            return rows->changed();
          },
          "cannot remove old files");
      if (!gone) {
        core::log_warn("sweep: cannot remove the {} files of {}: {}", kind_, owner, gone.error().describe());
      } else if (*gone > 0) {
        ++removed;
      }
    }
    return removed;
  }

  // One statement on the connection (the caller of a change holds the mutex already).
  result<detail::pg_rows> run(const char* sql, const pg_params& params, std::string_view what) const {
    std::lock_guard lock(mutex_);
    return db_->exec(sql, params, what);
  }

  const std::string& kind() const { return kind_; }
  const std::string& description() const { return db_->description(); }

 private:
  status lock_owner(const std::string& owner) {
    auto locked = db_->exec("SELECT pg_advisory_xact_lock(1752001900, hashtext($1 || '/' || $2))",
                            pg_params().text(kind_).text(owner), "cannot lock the files of " + owner);
    if (!locked) return locked.error();
    return {};
  }

  // After a rollback nothing was written or deleted.
  static void refuse_applied(skills::apply_report& report, const error& why) {
    for (auto* done : {&report.written, &report.deleted}) {
      const std::string op = done == &report.written ? "write" : "delete";
      for (auto& path : *done) {
        report.refused.push_back({std::move(path), op, std::string(why.code.wire_name()), why.describe()});
      }
      done->clear();
    }
  }

  // Recursive: a change's body reads and writes through the folder, which
  // takes the mutex again on the same thread.
  mutable std::recursive_mutex mutex_;
  std::unique_ptr<pg_connection> db_;
  const std::string kind_;
};

pg_params pg_folder::key() const {
  return std::move(pg_params().text(set_.kind()).text(owner_));
}

result<detail::pg_rows> pg_folder::run(const char* sql, pg_params params, std::string_view what) const {
  if (failure_) return *failure_;
  auto rows = set_.run(sql, params, what);
  if (!rows) failure_ = storage_failure(rows.error());
  if (!rows) return *failure_;
  return rows;
}

result<bool> pg_folder::conflicts(const std::string& rel) const {
  auto rows = run(conflict_sql, key().text(rel), "cannot read the files");
  if (!rows) return rows.error();
  return rows->size() > 0;
}

error path_conflict(const std::string& rel) {
  return make_error(skills::errc::path_conflict, fmt::format("'{}' conflicts with an existing file or folder", rel),
                    "a file and a folder cannot share a name; use another path or delete the other one first");
}

error pg_folder::missing(const std::string& rel) const {
  auto conflict = conflicts(rel);
  if (!conflict) return conflict.error();
  if (*conflict) return path_conflict(rel);
  return make_error(skills::errc::file_not_found, fmt::format("no file '{}'", rel));
}

result<bool> pg_folder::exists() const {
  auto rows = run("SELECT 1 FROM files WHERE kind = $1 AND owner = $2 LIMIT 1", key(), "cannot read the files");
  if (!rows) return rows.error();
  return rows->size() > 0;
}

result<skills::file_map> pg_folder::scan() const {
  auto rows = run("SELECT path, octet_length(content), modified_ms FROM files WHERE kind = $1 AND owner = $2", key(),
                  "cannot list the files");
  if (!rows) return rows.error();
  skills::file_map files;
  for (int i = 0; i < rows->size(); ++i) {
    files[rows->text(i, 0)] = {static_cast<std::size_t>(rows->int64(i, 1)), from_ms(rows->int64(i, 2))};
  }
  return files;
}

result<std::string> pg_folder::read_file(const std::string& rel, std::size_t max_bytes) const {
  auto rows = run(
      "SELECT octet_length(content), CASE WHEN octet_length(content) <= $4 THEN content END FROM files WHERE kind = $1 "
      "AND owner = $2 AND path = $3",
      key().text(rel).int64(static_cast<std::int64_t>(max_bytes)), "cannot read " + rel);
  if (!rows) return rows.error();
  if (rows->size() == 0) return missing(rel);
  const auto size = rows->int64(0, 0);
  if (static_cast<std::size_t>(size) > max_bytes) {
    return make_error(skills::errc::file_too_large,
                      fmt::format("'{}' is {} bytes; the limit is {}", rel, size, max_bytes));
  }
  return rows->bytes(0, 1);
}

status pg_folder::write_file(const std::string& rel, std::string_view bytes) {
  auto conflict = conflicts(rel);
  if (!conflict) return conflict.error();
  if (*conflict) return path_conflict(rel);
  auto rows =
      run("INSERT INTO files (kind, owner, path, content, modified_ms) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (kind, "
          "owner, path) DO UPDATE SET content = excluded.content, modified_ms = excluded.modified_ms",
          key().text(rel).bytes(bytes).int64(detail::wall_clock_ms()), "cannot write " + rel);
  if (!rows) return rows.error();
  return {};
}

status pg_folder::remove_file(const std::string& rel) {
  auto rows =
      run("DELETE FROM files WHERE kind = $1 AND owner = $2 AND path = $3", key().text(rel), "cannot delete " + rel);
  if (!rows) return rows.error();
  if (rows->changed() == 0) return missing(rel);
  return {};
}

std::string pg_folder::where() const {
  return fmt::format("the {} files of {} in {}", set_.kind(), owner_, set_.description());
}

}  // namespace

result<std::shared_ptr<skills::folder_set>> open_pg_folders(const std::string& url, std::string_view kind) {
  auto opened = detail::open_migrated_postgres(url);
  if (!opened) return opened.error();
  return std::shared_ptr<skills::folder_set>(std::make_shared<pg_folder_set>(std::move(opened->db), std::string(kind)));
}

result<std::unique_ptr<skills::skill_library>> create_pg_skill_library(const std::string& url,
                                                                       skills::skill_config config) {
  auto users = open_pg_folders(url, "skills");
  if (!users) return users.error();
  return skills::create_skill_library(std::move(config), std::move(*users));
}

result<std::unique_ptr<skills::workspace_store>> create_pg_workspace_store(const std::string& url,
                                                                           skills::workspace_config config) {
  auto tasks = open_pg_folders(url, "workspace");
  if (!tasks) return tasks.error();
  return skills::create_workspace_store(std::move(config), std::move(*tasks));
}

}  // namespace harness::store
