// The clocks the auth component reads, injected so tests control time. Local to
// auth on purpose: a function returning the time is all it needs.
#pragma once

#include <chrono>
#include <functional>

namespace harness::auth {

// Monotonic time, for the rate limiter and the key file's change checks.
using steady_now = std::function<std::chrono::steady_clock::time_point()>;

// Wall time, for the creation time written into the key file.
using system_now = std::function<std::chrono::system_clock::time_point()>;

}  // namespace harness::auth
