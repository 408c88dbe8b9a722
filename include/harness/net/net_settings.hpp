// The settings of the outbound HTTP client.
#pragma once

#include <vector>

#include "harness/core/settings.hpp"
#include "harness/net/http_client.hpp"

namespace harness::net {

// TLS_EXTRA_CA_FILE.
std::vector<core::setting_spec> net_setting_specs();

// The curl loop's options; an extra CA file that cannot be read, or holds no
// certificate, is an error naming the setting.
result<curl_loop_options> load_curl_loop_options(const core::settings& settings);

}  // namespace harness::net
