// Settings that belong to the program as a whole, and reading every setting
// source (.env, environment, flags) into one resolved core::settings.
#pragma once

#include <string>
#include <vector>

#include "harness/core/logging.hpp"
#include "harness/core/settings.hpp"

namespace harness::app {

// ENV_FILE, LOG_FORMAT, LOG_LEVEL plus every component's settings, in --help order.
std::vector<core::setting_spec> all_setting_specs();

// Reads the .env file (ENV_FILE from flags or environment, else ./.env if it
// exists), the environment, and `args` (flags only).
result<core::settings> load_settings(const std::vector<core::setting_spec>& specs,
                                     const std::vector<std::string>& args);

result<core::log_config> load_log_config(const core::settings& settings);

}  // namespace harness::app
