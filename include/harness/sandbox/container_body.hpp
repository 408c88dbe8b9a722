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
nlohmann::json hardened_container_body(const sandbox_config& config, const std::string& task_id,
                                       const std::vector<std::string>& entrypoint = {});

}  // namespace harness::sandbox
