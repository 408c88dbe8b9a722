#include "confined_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "harness/core/ids.hpp"
#include "harness/skills/errors.hpp"
#include "harness/skills/file_rules.hpp"

namespace harness::skills {
namespace {

namespace fs = std::filesystem;

// Temp files carry a '~', which no accepted path contains, so they can never
// collide with a sandbox's file and scans skip leftovers of a crash.
constexpr std::string_view temp_prefix = ".harness-tmp~";

class unique_fd {
 public:
  explicit unique_fd(int fd = -1) : fd_(fd) {}
  unique_fd(unique_fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  unique_fd& operator=(unique_fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

error storage_error(std::string_view what, int err) {
  return make_error(skills::errc::storage_error, fmt::format("{}: {}", what, std::strerror(err)),
                    "check the server's folder permissions and free disk space");
}

error host_symlink(std::string_view rel) {
  return make_error(skills::errc::host_symlink,
                    fmt::format("'{}' meets a symlink on the host; symlinks are never followed", rel),
                    "remove the symlink on the server, or use another path");
}

error path_conflict(std::string_view rel) {
  return make_error(skills::errc::path_conflict, fmt::format("'{}' conflicts with an existing file or folder", rel),
                    "a file and a folder cannot share a name; use another path or delete the other one first");
}

error not_found(std::string_view rel) {
  return make_error(skills::errc::file_not_found, fmt::format("no file '{}'", rel));
}

std::vector<std::string> split(const std::string& rel) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= rel.size()) {
    auto slash = rel.find('/', start);
    if (slash == std::string::npos) slash = rel.size();
    out.push_back(rel.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

// Opens the folder `name` inside `dir` without following a symlink, creating
// it when asked.
result<unique_fd> open_folder(int dir, const std::string& name, bool create, std::string_view rel) {
  struct stat st {};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT) return storage_error(rel, errno);
    if (!create) return not_found(rel);
    if (::mkdirat(dir, name.c_str(), 0755) != 0 && errno != EEXIST) return storage_error(rel, errno);
  } else if (S_ISLNK(st.st_mode)) {
    return host_symlink(rel);
  } else if (!S_ISDIR(st.st_mode)) {
    return path_conflict(rel);
  }
  int fd = ::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    // Replaced by a symlink or a file since the stat: refuse, never follow.
    if (errno == ELOOP || errno == ENOTDIR) return host_symlink(rel);
    if (errno == ENOENT) return not_found(rel);
    return storage_error(rel, errno);
  }
  return unique_fd(fd);
}

// Descriptors of the folder itself and of each of the first `depth` segments
// of `segments` below it: chain[0] is the folder, chain.back() the parent of
// segments[depth].
result<std::vector<unique_fd>> open_chain(const fs::path& parent, const std::string& name,
                                          const std::vector<std::string>& segments, std::size_t depth, bool create,
                                          std::string_view rel) {
  if (create) {
    std::error_code ec;
    fs::create_directories(parent, ec);
    if (ec) return storage_error("creating the storage folder", ec.value());
  }
  unique_fd top(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (top.get() < 0) {
    if (errno == ENOENT && !create) return not_found(rel);
    return storage_error("opening the storage folder", errno);
  }
  std::vector<unique_fd> chain;
  auto folder = open_folder(top.get(), name, create, rel);
  if (!folder) return folder.error();
  chain.push_back(std::move(*folder));
  for (std::size_t i = 0; i < depth; ++i) {
    auto next = open_folder(chain.back().get(), segments[i], create, rel);
    if (!next) return next.error();
    chain.push_back(std::move(*next));
  }
  return chain;
}

// Classifies an existing entry at the target name: ok when absent or a regular file.
status check_target(int dir, const std::string& name, std::string_view rel, bool must_exist) {
  struct stat st {};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT) return storage_error(rel, errno);
    if (must_exist) return not_found(rel);
    return {};
  }
  if (S_ISLNK(st.st_mode)) return host_symlink(rel);
  if (!S_ISREG(st.st_mode)) return path_conflict(rel);
  return {};
}

status write_all(int fd, std::string_view bytes, std::string_view rel) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return storage_error(rel, errno);
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

}  // namespace

confined_dir::confined_dir(fs::path parent, std::string name)
    : parent_(std::move(parent)), name_(std::move(name)), path_(parent_ / name_) {}

result<bool> confined_dir::exists() const {
  std::error_code ec;
  return fs::is_directory(fs::symlink_status(path_, ec));
}

result<file_map> confined_dir::scan() const {
  file_map files;
  std::error_code ec;
  auto status = fs::symlink_status(path_, ec);
  if (!fs::exists(status)) return files;
  if (fs::is_symlink(status)) return host_symlink(name_);
  if (!fs::is_directory(status)) return path_conflict(name_);
  fs::recursive_directory_iterator it(path_, fs::directory_options::skip_permission_denied, ec);
  if (ec) return storage_error("listing files", ec.value());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return storage_error("listing files", ec.value());
    const auto& entry = *it;
    auto entry_status = entry.symlink_status(ec);
    if (ec || !fs::is_regular_file(entry_status)) continue;  // symlinks are not followed into
    std::string rel = entry.path().lexically_relative(path_).generic_string();
    if (check_relative_path(rel)) continue;  // temp files and names no sandbox could have written
    auto size = entry.file_size(ec);
    if (ec) continue;
    auto modified = entry.last_write_time(ec);
    if (ec) continue;
    files[rel] = {static_cast<std::size_t>(size), modified};
  }
  return files;
}

status confined_dir::write_file(const std::string& rel, std::string_view bytes) {
  auto segments = split(rel);
  auto chain = open_chain(parent_, name_, segments, segments.size() - 1, /*create=*/true, rel);
  if (!chain) return chain.error();
  int dir = chain->back().get();
  const std::string& name = segments.back();
  if (auto target = check_target(dir, name, rel, /*must_exist=*/false); !target) return target;
  std::string temp = std::string(temp_prefix) + core::make_id("");
  unique_fd out(::openat(dir, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (out.get() < 0) return storage_error(rel, errno);
  auto written = write_all(out.get(), bytes, rel);
  out.reset();
  // rename() replaces a symlink that appeared at the target since the check
  // rather than following it, so the write stays inside the folder regardless.
  if (written && ::renameat(dir, temp.c_str(), dir, name.c_str()) != 0) written = storage_error(rel, errno);
  if (!written) ::unlinkat(dir, temp.c_str(), 0);
  return written;
}

status confined_dir::remove_file(const std::string& rel) {
  auto segments = split(rel);
  auto chain = open_chain(parent_, name_, segments, segments.size() - 1, /*create=*/false, rel);
  if (!chain) return chain.error();
  int dir = chain->back().get();
  if (auto target = check_target(dir, segments.back(), rel, /*must_exist=*/true); !target) return target;
  if (::unlinkat(dir, segments.back().c_str(), 0) != 0) return storage_error(rel, errno);
  // Prune folders that became empty, innermost first; the folder itself stays.
  for (std::size_t i = chain->size() - 1; i >= 1; --i) {
    if (::unlinkat((*chain)[i - 1].get(), segments[i - 1].c_str(), AT_REMOVEDIR) != 0) break;
  }
  return {};
}

result<std::string> confined_dir::read_file(const std::string& rel, std::size_t max_bytes) const {
  auto segments = split(rel);
  auto chain = open_chain(parent_, name_, segments, segments.size() - 1, /*create=*/false, rel);
  if (!chain) return chain.error();
  int dir = chain->back().get();
  if (auto target = check_target(dir, segments.back(), rel, /*must_exist=*/true); !target) return target.error();
  unique_fd in(::openat(dir, segments.back().c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (in.get() < 0) return errno == ELOOP ? host_symlink(rel) : storage_error(rel, errno);
  struct stat st {};
  if (::fstat(in.get(), &st) != 0) return storage_error(rel, errno);
  if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    return make_error(skills::errc::file_too_large,
                      fmt::format("'{}' is {} bytes; the limit is {}", rel, st.st_size, max_bytes));
  }
  std::string bytes;
  bytes.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  while (got < bytes.size()) {
    ssize_t n = ::read(in.get(), bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return storage_error(rel, errno);
    if (n == 0) break;  // shrank while we read: return what is there
    got += static_cast<std::size_t>(n);
  }
  bytes.resize(got);
  return bytes;
}

status confined_dir::remove_all() {
  std::error_code ec;
  fs::remove_all(path_, ec);  // removes a symlink itself, never what it points to
  if (ec) return storage_error("removing a folder", ec.value());
  return {};
}

fs::file_time_type confined_dir::newest_change() const {
  std::error_code ec;
  auto newest = fs::file_time_type::min();
  fs::recursive_directory_iterator it(path_, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code entry_ec;
    if (!fs::is_regular_file(it->symlink_status(entry_ec))) continue;
    auto when = it->last_write_time(entry_ec);
    if (!entry_ec && when > newest) newest = when;
  }
  if (newest == fs::file_time_type::min()) {
    // No file at all: the folder's own time says when it was last touched.
    newest = fs::last_write_time(path_, ec);
    if (ec) return fs::file_time_type::min();
  }
  return newest;
}

std::string iso_time(fs::file_time_type time) {
  auto system =
      std::chrono::time_point_cast<std::chrono::system_clock::duration>(std::chrono::file_clock::to_sys(time));
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}Z", fmt::gmtime(std::chrono::system_clock::to_time_t(system)));
}

}  // namespace harness::skills
