// The HTTP front door's settings (HOST, PORT, ALLOWED_HOSTS, limits, timeouts).
#pragma once

#include <vector>

#include "harness/core/settings.hpp"
#include "harness/http/server.hpp"
#include "harness/http/services.hpp"

namespace harness::http {

struct http_config {
  server_config server;
  request_limits limits;
  std::vector<std::string> allowed_hosts;  // ALLOWED_HOSTS (see request_source.hpp)
};

std::vector<core::setting_spec> http_setting_specs();

// Fails with the first invalid setting, named.
result<http_config> load_http_config(const core::settings& settings);

}  // namespace harness::http
