#include "harness/auth/auth_config.hpp"

#include "harness/core/errors.hpp"

namespace harness::auth {

std::vector<core::setting_spec> auth_setting_specs() {
  return {
      {"AUTH", "auto",
       "auto (API keys are needed once API_KEYS_FILE holds one; open without keys on a loopback HOST only), keys "
       "(always needed) or none (never; unsafe off loopback)"},
      {"API_KEYS_FILE", "data/api-keys.json",
       "API key file (hashes only, mode 600) that `mcp-harness keys` manages; changes apply without a restart"},
      {"RATE_LIMIT_PER_MINUTE", "600", "requests per minute each API key may make (token bucket); 0: no limit"},
      {"RATE_LIMIT_BURST", "100", "requests an API key may make at once before the per-minute rate applies"},
  };
}

result<auth_config> load_auth_config(const core::settings& settings) {
  auth_config c;
  auto mode = settings.get_choice("AUTH", {"auto", "keys", "none"});
  if (!mode) return mode.error();
  c.mode = *mode == "keys" ? auth_mode::keys : *mode == "none" ? auth_mode::none : auth_mode::automatic;
  c.keys_file = settings.get("API_KEYS_FILE");
  if (c.keys_file.empty()) {
    return make_error(core::errc::invalid_setting, "API_KEYS_FILE is empty",
                      "name the key file, e.g. data/api-keys.json");
  }
  auto per_minute = settings.get_int("RATE_LIMIT_PER_MINUTE", 0, 1'000'000);
  if (!per_minute) return per_minute.error();
  auto burst = settings.get_int("RATE_LIMIT_BURST", 1, 1'000'000);
  if (!burst) return burst.error();
  c.limit = {static_cast<double>(*per_minute), static_cast<double>(*burst)};
  return c;
}

}  // namespace harness::auth
