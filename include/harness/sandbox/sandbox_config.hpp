// Sandbox settings: the image, the limits and every hardening knob that has a
// value (design.md section 4). Defaults are the safe ones.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/error.hpp"
#include "harness/core/settings.hpp"

namespace harness::sandbox {

struct sandbox_config {
  std::string image = "mcp-harness-sandbox:latest";
  std::chrono::milliseconds timeout{30'000};  // one code block, start to exit
  std::int64_t memory_mb = 256;               // Memory and MemorySwap (no swap)
  double cpus = 1.0;                          // NanoCpus = cpus * 1e9
  std::int64_t pids_limit = 128;
  std::int64_t tmp_mb = 64, workspace_mb = 64, skills_mb = 16;  // tmpfs caps
  std::int64_t nofile_limit = 1024;                             // ulimit -n
  std::string runtime;                                          // "" = engine default (runc); "runsc" for gVisor
  std::string network = "none";                                 // NetworkMode; anything else is a deliberate grant
  // Value of the ownership label; sweeps only touch containers with this value.
  std::string owner = "mcp-harness";
  std::int64_t max_code_bytes = 1 << 20;
};

// SANDBOX_IMAGE, SANDBOX_TIMEOUT_MS, SANDBOX_MEMORY_MB, SANDBOX_CPU_QUOTA,
// SANDBOX_PIDS_LIMIT, SANDBOX_TMP_MB, SANDBOX_WORKSPACE_MB, SANDBOX_SKILLS_MB,
// SANDBOX_NOFILE_LIMIT, SANDBOX_RUNTIME, SANDBOX_NETWORK.
std::vector<core::setting_spec> sandbox_setting_specs();
result<sandbox_config> load_sandbox_config(const core::settings& settings);

}  // namespace harness::sandbox
