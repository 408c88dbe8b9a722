#include "harness/core/file_signature.hpp"

namespace harness::core {

file_signature signature_from(const struct stat& st) {
  file_signature s;
  s.exists = true;
  s.device = static_cast<std::uint64_t>(st.st_dev);
  s.inode = static_cast<std::uint64_t>(st.st_ino);
  s.size = static_cast<std::uint64_t>(st.st_size);
  s.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  s.mode = static_cast<std::uint32_t>(st.st_mode);
  return s;
}

file_signature signature_of(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return signature_from(st);
}

}  // namespace harness::core
