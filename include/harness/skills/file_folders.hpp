// Where the skill library and the workspace store keep their files: one
// folder of files per owner (a user's skills, a task's workspace). The
// library and the store hold every rule (paths, caps, SKILL.md, JSON shapes);
// a folder_set only stores bytes. Two implementations: folders on the host's
// disk (disk_folders, confined to a root and never following a symlink), and
// rows in PostgreSQL shared by replicas (harness/store/pg_files.hpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "harness/core/error.hpp"
#include "harness/skills/file_rules.hpp"

namespace harness::skills {

struct stored_file {
  std::size_t size = 0;
  std::filesystem::file_time_type modified;
};

// Relative path ("a/b.js") -> file.
using file_map = std::map<std::string, stored_file>;

// One owner's files. Paths passed in have passed check_relative_path.
class file_folder {
 public:
  virtual ~file_folder() = default;

  // Whether the folder exists (on disk: even empty; in rows: holds a file).
  // Error: storage_error (a database that cannot answer is not "absent").
  virtual result<bool> exists() const = 0;

  // The files whose paths pass check_relative_path; an absent folder is
  // empty. Errors: storage_error (and host_symlink, path_conflict on disk).
  virtual result<file_map> scan() const = 0;

  // The file's bytes. Errors: file_not_found, path_conflict (a folder there,
  // or a file on the way), file_too_large (over max_bytes), storage_error.
  virtual result<std::string> read_file(const std::string& rel, std::size_t max_bytes) const = 0;

  // Writes `bytes` to `rel` (whole or not at all). Errors: path_conflict (a
  // file where a folder is needed or the reverse), storage_error.
  virtual status write_file(const std::string& rel, std::string_view bytes) = 0;

  // Removes the file at `rel`. Errors: file_not_found, path_conflict, storage_error.
  virtual status remove_file(const std::string& rel) = 0;

  // Names the folder in log lines.
  virtual std::string where() const = 0;
};

// The folders of one kind, one per owner id (is_storage_id). Thread-safe.
class folder_set {
 public:
  virtual ~folder_set() = default;

  // `owner`'s folder, for reading.
  virtual std::unique_ptr<const file_folder> open(const std::string& owner) const = 0;

  // Runs `body` on `owner`'s folder with no other change to that folder in
  // between (on every replica, for a shared set), so caps counted by the body
  // hold. A shared set applies the body's changes in one transaction: when
  // that fails, none is kept and the report lists them all as refused.
  virtual apply_report change(const std::string& owner, const std::function<apply_report(file_folder&)>& body) = 0;

  // Removes `sub` (a first-level folder, e.g. a skill) of `owner`'s folder,
  // or with `sub` empty the whole folder. Whether anything was there.
  // Error: storage_error.
  virtual result<bool> remove(const std::string& owner, const std::string& sub) = 0;

  // Removes every folder whose newest file (on disk, when it holds none, the
  // folder itself) was modified before `cutoff`. How many it removed.
  virtual std::size_t remove_older_than(std::filesystem::file_time_type cutoff) = 0;
};

// Folders <root>/<owner>/ on the host; creates `root` when missing and
// throws std::runtime_error (naming `setting`) when it cannot.
std::shared_ptr<folder_set> disk_folders(std::filesystem::path root, std::string_view setting);

// "2026-11-30T01:02:03Z".
std::string iso_time(std::filesystem::file_time_type time);

}  // namespace harness::skills
