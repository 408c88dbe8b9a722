#include "cgroup_pids.hpp"

#include <fstream>

namespace harness::sandbox::detail {

std::optional<std::int64_t> pids_limit_hits(const std::string& container_id) {
  const std::string paths[] = {
      "/sys/fs/cgroup/pids/docker/" + container_id + "/pids.events",                     // v1, cgroupfs
      "/sys/fs/cgroup/pids/system.slice/docker-" + container_id + ".scope/pids.events",  // v1, systemd
      "/sys/fs/cgroup/docker/" + container_id + "/pids.events",                          // v2, cgroupfs
      "/sys/fs/cgroup/system.slice/docker-" + container_id + ".scope/pids.events",       // v2, systemd
  };
  for (const auto& path : paths) {
    std::ifstream in(path);
    std::string key;
    std::int64_t value = 0;
    while (in >> key >> value) {
      if (key == "max") return value;
    }
  }
  return std::nullopt;
}

}  // namespace harness::sandbox::detail
