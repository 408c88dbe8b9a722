// The Engine API body that creates a sandbox container: every hardening setting
// in one place, as a pure function so it can be read and unit-tested.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/sandbox/sandbox_config.hpp"

namespace harness::sandbox {

// Label keys on every sandbox container.
inline constexpr const char* owner_label = "org.mcp-harness.sandbox";  // value: sandbox_config::owner
inline constexpr const char* task_label = "org.mcp-harness.task";      // value: the task id

// POST /containers/create body: non-root user, read-only root, no capabilities,
// no-new-privileges, the configured network (none by default), pids, memory
// (= memory + swap), CPU, tmpfs mounts with caps, init, labels, capped logs,
// ulimits; stdin open for one attach; an environment with no secrets.
// `entrypoint` overrides the image's (the REPL runtime) when not empty.
// `call_socket` (a host path) is bind-mounted at bridge::call_socket_mount
// (/run/harness-calls.sock) when not empty: the one host path a sandbox sees.
nlohmann::json hardened_container_body(const sandbox_config& config, const std::string& task_id,
                                       const std::vector<std::string>& entrypoint = {},
                                       const std::string& call_socket = {});

// Where the runtime finds its call socket inside the container.
inline constexpr const char* call_socket_mount = "/run/harness-calls.sock";

}  // namespace harness::sandbox
