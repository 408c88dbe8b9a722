#include "harness/core/writable_dir.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace harness::core {

namespace fs = std::filesystem;

status ensure_writable_dir(const fs::path& dir, std::string_view setting) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    return make_error(core::errc::invalid_setting,
                      fmt::format("{}: cannot create the folder {}: {}", setting, dir.string(),
                                  ec ? ec.message() : std::string("a file of that name is in the way")),
                      "point it at a folder the server may create and write");
  }
  // A probe file rather than access(2): access says yes to root on a
  // read-only mount, and no to nothing that a real write would refuse.
  fs::path probe = dir / fmt::format(".write-probe-{}", ::getpid());
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    int err = errno;
    return make_error(core::errc::invalid_setting,
                      fmt::format("{}: the folder {} is not writable: {}", setting, dir.string(), std::strerror(err)),
                      "give the server's user write access, or point it at another folder");
  }
  ::close(fd);
  fs::remove(probe, ec);
  return {};
}

}  // namespace harness::core
