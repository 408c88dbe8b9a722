#include "harness/auth/auth_config.hpp"

namespace harness::auth {

std::vector<core::setting_spec> auth_setting_specs() {
  return {
      {"AUTH", "none",
       "keys (requests need an API key from API_KEYS_FILE) or none; the HTTP routes do not enforce it yet"},
      {"API_KEYS_FILE", "data/api-keys.json",
       "API key file (hashes only, mode 600) that `mcp-harness keys` manages; changes apply without a restart"},
      {"RATE_LIMIT_PER_MINUTE", "60", "requests per minute each API key may make (token bucket); 0: no limit"},
      {"RATE_LIMIT_BURST", "20", "requests an API key may make at once before the per-minute rate applies"},
  };
}

result<auth_config> load_auth_config(const core::settings& settings) {
  auth_config c;
  auto mode = settings.get_choice("AUTH", {"none", "keys"});
  if (!mode) return mode.error();
  c.mode = *mode == "keys" ? auth_mode::keys : auth_mode::none;
  c.keys_file = settings.get("API_KEYS_FILE");
  if (c.keys_file.empty()) {
    return make_error("invalid_setting", "API_KEYS_FILE is empty", "name the key file, e.g. data/api-keys.json");
  }
  auto per_minute = settings.get_int("RATE_LIMIT_PER_MINUTE", 0, 1'000'000);
  if (!per_minute) return per_minute.error();
  auto burst = settings.get_int("RATE_LIMIT_BURST", 1, 1'000'000);
  if (!burst) return burst.error();
  c.limit = {static_cast<double>(*per_minute), static_cast<double>(*burst)};
  return c;
}

}  // namespace harness::auth
