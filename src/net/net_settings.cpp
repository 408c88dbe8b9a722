#include "harness/net/net_settings.hpp"

#include <fstream>
#include <sstream>

#include "harness/core/errors.hpp"

namespace harness::net {

std::vector<core::setting_spec> net_setting_specs() {
  return {
      {"TLS_EXTRA_CA_FILE", "",
       "PEM file of CA certificates trusted for outbound HTTPS (LLM, remote MCP servers, OAuth) besides the system "
       "store"},
  };
}

result<curl_loop_options> load_curl_loop_options(const core::settings& settings) {
  curl_loop_options options;
  options.extra_ca_file = settings.get("TLS_EXTRA_CA_FILE");
  if (!options.extra_ca_file.empty()) {
    std::ifstream file(options.extra_ca_file);
    std::stringstream text;
    text << file.rdbuf();
    if (!file) {
      return make_error(core::errc::invalid_setting, "TLS_EXTRA_CA_FILE: cannot read " + options.extra_ca_file);
    }
    if (text.str().find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
      return make_error(core::errc::invalid_setting,
                        "TLS_EXTRA_CA_FILE: " + options.extra_ca_file + " holds no PEM certificate",
                        "give a file of -----BEGIN CERTIFICATE----- blocks");
    }
  }
  return options;
}

}  // namespace harness::net
