// Settings of the warm pool and of /execute sessions.
#pragma once

#include <vector>

#include "harness/core/settings.hpp"
#include "harness/execution/execution_service.hpp"
#include "harness/execution/warm_pool.hpp"

namespace harness::execution {

struct execution_settings {
  pool_config pool;         // JavaScript sandboxes
  pool_config python_pool;  // Python sandboxes: on demand, up to SANDBOX_PYTHON_POOL_MAX
  execution_config service;
};

// SANDBOX_POOL_SIZE, SANDBOX_POOL_MAX, SANDBOX_PYTHON_POOL_MAX, SANDBOX_READY_TIMEOUT_MS, SANDBOX_IDLE_TIMEOUT_MS,
// SANDBOX_MAX_SESSIONS, SANDBOX_LOG_BYTES, SANDBOX_MAX_FILE_BYTES, SANDBOX_MAX_FILES,
// SANDBOX_CALL_SOCKET_DIR (made absolute).
// The block deadline is SANDBOX_TIMEOUT_MS, owned by the sandbox settings.
std::vector<core::setting_spec> execution_setting_specs();
result<execution_settings> load_execution_settings(const core::settings& settings,
                                                   std::chrono::milliseconds exec_timeout);

}  // namespace harness::execution
