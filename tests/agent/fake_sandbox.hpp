// The agent's tests run their tasks' sandboxes on the execution tests' fake
// warm pool (in-memory runtimes, no Docker).
#pragma once

#include "execution/fake_warm_pool.hpp"

namespace harness::agent::testing {

using fake_pool = execution::testing::fake_pool;

}  // namespace harness::agent::testing
