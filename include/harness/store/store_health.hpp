// GET /health entry "store" for the task store.
#pragma once

#include <memory>

#include "harness/core/health.hpp"
#include "harness/store/task_store.hpp"

namespace harness::store {

// Reports under "store", required: up while the store is open and its last
// storage operation succeeded; detail holds the backend, path, schema version,
// journal mode, operation counts and the last storage error. check() returns
// the store's cached state (task_store::health()): no I/O, no waiting.
std::shared_ptr<const core::health_source> store_health(std::shared_ptr<task_store> store);

}  // namespace harness::store
