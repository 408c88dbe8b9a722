// How often a container's processes hit its pids limit, read from the cgroup
// on this host (internal). Only meaningful when the engine runs here and the
// container is still running: the kernel's own counter does not depend on when
// it is sampled, unlike a process count, which a fork bomb makes go up and down.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace harness::sandbox::detail {

// The "max" count of pids.events for the container (cgroup v1 and v2, cgroupfs
// and systemd drivers), or nullopt when no such file is found. Reads one small
// kernel file: does not block.
std::optional<std::int64_t> pids_limit_hits(const std::string& container_id);

}  // namespace harness::sandbox::detail
