// Settings of caller identity: whether requests need an API key, where the
// keys live and the per-key rate limit. Nothing enforces them on the HTTP
// routes yet (docs/architecture/auth.md).
#pragma once

#include <filesystem>
#include <vector>

#include "harness/auth/rate_limiter.hpp"
#include "harness/core/error.hpp"
#include "harness/core/settings.hpp"

namespace harness::auth {

enum class auth_mode { none, keys };

struct auth_config {
  auth_mode mode = auth_mode::none;
  std::filesystem::path keys_file = "data/api-keys.json";
  rate_limit limit;
};

// AUTH, API_KEYS_FILE, RATE_LIMIT_PER_MINUTE, RATE_LIMIT_BURST.
std::vector<core::setting_spec> auth_setting_specs();

// Errors ("invalid_setting") name the setting and the rule it broke.
result<auth_config> load_auth_config(const core::settings& settings);

}  // namespace harness::auth
