#include "access_setup.hpp"

#include <arpa/inet.h>

#include <cstring>

#include <fmt/format.h>

#include "harness/auth/auth_config.hpp"
#include "harness/auth/key_store.hpp"
#include "harness/auth/rate_limiter.hpp"
#include "harness/core/errors.hpp"

namespace harness::app {

bool is_loopback_host(const std::string& host) {
  if (host == "localhost") return true;
  std::string bare =
      host.size() > 2 && host.front() == '[' && host.back() == ']' ? host.substr(1, host.size() - 2) : host;
  unsigned char v4[4];
  if (inet_pton(AF_INET, bare.c_str(), v4) == 1) return v4[0] == 127;
  unsigned char v6[16];
  if (inet_pton(AF_INET6, bare.c_str(), v6) == 1) {
    static const unsigned char loopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    return std::memcmp(v6, loopback, sizeof v6) == 0;
  }
  return false;
}

result<access_setup> build_access_gate(const core::settings& settings, const std::string& host,
                                       core::metrics_registry& metrics) {
  auto config = auth::load_auth_config(settings);
  if (!config) return config.error();
  access_setup out;
  const bool loopback = is_loopback_host(host);
  if (config->mode == auth::auth_mode::none) {
    out.warning = true;
    out.notice = std::string(
                     "AUTH=none: every request is served without an API key, and any caller may act as any "
                     "user") +
                 (loopback ? "" : "; HOST is not loopback, so that is anyone who can reach the port");
    return out;
  }
  auto keys = auth::create_file_key_store(config->keys_file, core::real_clock());
  if (!keys) return keys.error();
  std::shared_ptr<auth::key_store> store = std::move(*keys);
  const auto count = store->key_count();
  const auto file = config->keys_file.string();
  if (count > 0) {
    out.notice = fmt::format("{} API key(s) in {}: every request but the health probes needs one", count, file);
  } else if (config->mode == auth::auth_mode::keys) {
    out.warning = true;
    out.notice = fmt::format(
        "AUTH=keys and {} holds no key: every request but the health probes is refused until one is made with: "
        "mcp-harness keys add --user NAME",
        file);
  } else if (loopback) {
    out.warning = true;
    out.notice = fmt::format(
        "no API key in {}: the server runs open on {} (any local process may act as any user) until a key is made "
        "with: mcp-harness keys add --user NAME",
        file, host);
  } else {
    return make_error(core::errc::invalid_setting,
                      "HOST " + host + " is not a loopback address and " + file +
                          " holds no API key, so anyone who can reach the port could act as any user",
                      "make a key with: mcp-harness keys add --user NAME (or set AUTH=none, which is unsafe)");
  }
  std::shared_ptr<auth::rate_limiter> limiter;
  if (config->limit.per_minute > 0) limiter = std::make_shared<auth::rate_limiter>(config->limit, core::real_clock());
  out.gate = std::make_shared<http::access_gate>(http::access_gate::options{
      .keys = std::move(store),
      .open_while_no_keys = config->mode == auth::auth_mode::automatic && loopback,
      .limiter = std::move(limiter),
      .metrics = &metrics,
  });
  return out;
}

}  // namespace harness::app
