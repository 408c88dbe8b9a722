// Settings of caller identity: whether requests need an API key, where the
// keys live and the per-key rate limit (docs/architecture/auth.md).
#pragma once

#include <filesystem>
#include <vector>

#include "harness/auth/rate_limiter.hpp"
#include "harness/core/error.hpp"
#include "harness/core/settings.hpp"

namespace harness::auth {

// auto: keys are needed once API_KEYS_FILE holds one; with none, the server
//       runs open on a loopback HOST and refuses to start on any other.
// keys: every request but the health probes needs a key, even with none made.
// none: no request needs a key (unsafe off loopback; logged at start-up).
enum class auth_mode { automatic, keys, none };

struct auth_config {
  auth_mode mode = auth_mode::automatic;
  std::filesystem::path keys_file = "data/api-keys.json";
  rate_limit limit;
};

// AUTH, API_KEYS_FILE, RATE_LIMIT_PER_MINUTE, RATE_LIMIT_BURST.
std::vector<core::setting_spec> auth_setting_specs();

// Errors ("invalid_setting") name the setting and the rule it broke.
result<auth_config> load_auth_config(const core::settings& settings);

}  // namespace harness::auth
