// What identifies one version of a file on disk, for settings files that a
// running server follows (the API key file, the tool policy): a change of any
// field means the file must be read again.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>

namespace harness::core {

struct file_signature {
  bool exists = false;  // false for a missing file
  std::uint64_t device = 0, inode = 0, size = 0;
  std::int64_t mtime_ns = 0;
  std::uint32_t mode = 0;
  bool operator==(const file_signature&) const = default;
};

// The signature of an open file's stat.
file_signature signature_from(const struct stat& st);

// The signature of whatever is at `path` now (exists = false when nothing is).
file_signature signature_of(const std::filesystem::path& path);

}  // namespace harness::core
