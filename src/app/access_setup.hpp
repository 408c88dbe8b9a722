// Assembles caller identity for the HTTP server: the key store over
// API_KEYS_FILE, the per-key rate limiter, and the decision whether the
// server may run open (docs/architecture/auth.md, "Modes").
#pragma once

#include <memory>
#include <string>

#include "harness/core/error.hpp"
#include "harness/core/metrics.hpp"
#include "harness/core/settings.hpp"
#include "harness/http/access_gate.hpp"

namespace harness::app {

struct access_setup {
  // Null when AUTH=none: every request is served as the open caller.
  std::shared_ptr<http::access_gate> gate;
  // The line that says which mode is in force (and how to leave an unsafe
  // one), logged once start-up has succeeded so that a failed start prints
  // only its one error line.
  bool warning = false;
  std::string notice;
};

// Reads the key file and decides the mode. Errors: invalid_setting for a bad AUTH/RATE_LIMIT_* value, and when
// AUTH=auto finds no key while HOST is not a loopback address (the server
// would let anyone on the network act as any user); invalid_key_file.
result<access_setup> build_access_gate(const core::settings& settings, const std::string& host,
                                       core::metrics_registry& metrics);

// True for "localhost", 127.0.0.0/8 and ::1 (and [::1]).
bool is_loopback_host(const std::string& host);

}  // namespace harness::app
