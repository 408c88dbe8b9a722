// One folder on the host that sandbox output is written into (a user's skills,
// a task's workspace), with every access confined to it: paths are walked one
// segment at a time with O_NOFOLLOW from a descriptor of the folder, so a
// symlink already on the host (planted by anyone) is refused instead of
// followed, and nothing is ever created or read outside the folder.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "harness/core/error.hpp"
#include "harness/skills/file_folders.hpp"

namespace harness::skills {

class confined_dir final : public file_folder {
 public:
  // The folder is `parent`/`name`; `parent` is trusted (configuration),
  // `name` (a user or task id) is opened without following a symlink.
  confined_dir(std::filesystem::path parent, std::string name);

  const std::filesystem::path& path() const { return path_; }
  std::string where() const override { return path_.string(); }
  result<bool> exists() const override;

  // Regular files below the folder whose paths pass check_relative_path;
  // symlinks, special files and our temp files are skipped. An absent folder
  // is empty. Error: storage_error.
  result<file_map> scan() const override;

  // Writes `bytes` to `rel` atomically (temp file + rename), creating folders.
  // Errors: host_symlink (a symlink on the way or at the target),
  // path_conflict (a file where a folder is needed or the reverse), storage_error.
  status write_file(const std::string& rel, std::string_view bytes) override;

  // Removes the file at `rel`, then every folder on its path that became
  // empty. Errors: file_not_found, host_symlink, path_conflict, storage_error.
  status remove_file(const std::string& rel) override;

  // The file's bytes. Errors: file_not_found, host_symlink, file_too_large
  // (over max_bytes), storage_error.
  result<std::string> read_file(const std::string& rel, std::size_t max_bytes) const override;

  // Removes the folder and everything in it (a symlink is removed, never
  // followed); a missing folder is fine. Error: storage_error.
  status remove_all();

  // Newest modification time of the files below the folder; the folder's own
  // time when it holds no file; min() when it is gone.
  std::filesystem::file_time_type newest_change() const;

 private:
  std::filesystem::path parent_;
  std::string name_;
  std::filesystem::path path_;
};

}  // namespace harness::skills
