#include "harness/http/http_settings.hpp"

namespace harness::http {

std::vector<core::setting_spec> http_setting_specs() {
  return {
      {"HOST", "127.0.0.1", "address to listen on; 0.0.0.0 for every interface (e.g. inside a container)"},
      {"PORT", "3000", "TCP port to listen on (0 picks a free one)"},
      {"ALLOWED_HOSTS", "",
       "comma-separated names (name or name:port) that requests may give in Host besides loopback names with PORT; "
       "on a loopback HOST nothing else is served, elsewhere an empty list serves every Host (against DNS "
       "rebinding: a proxy in front names its public host here)"},
      {"HTTP_BODY_LIMIT", "1048576", "largest request body in bytes; larger ones get 413"},
      {"HTTP_HEADER_LIMIT", "16384", "largest request header block in bytes; larger ones get 431"},
      {"HTTP_REQUEST_TIMEOUT_MS", "10000", "a started request must arrive whole within this time, else 408"},
      {"HTTP_KEEPALIVE_TIMEOUT_MS", "30000", "idle keep-alive connections are closed after this time"},
      {"SHUTDOWN_GRACE_MS", "10000", "on SIGTERM/SIGINT, requests in flight get this long to finish"},
      {"TASK_MAX_CHARS", "100000", "largest accepted 'task' text in POST /task, in bytes"},
  };
}

result<http_config> load_http_config(const core::settings& s) {
  http_config config;
  config.server.host = s.get("HOST");
  auto allowed_hosts = parse_allowed_hosts(s.get("ALLOWED_HOSTS"));
  if (!allowed_hosts) return allowed_hosts.error();
  config.allowed_hosts = std::move(*allowed_hosts);
  auto port = s.get_int("PORT", 0, 65535);
  auto body = s.get_int("HTTP_BODY_LIMIT", 1024, 1LL << 30);
  auto header = s.get_int("HTTP_HEADER_LIMIT", 1024, 1 << 20);
  auto request_timeout = s.get_ms("HTTP_REQUEST_TIMEOUT_MS", 100, 3600000);
  auto keepalive = s.get_ms("HTTP_KEEPALIVE_TIMEOUT_MS", 100, 3600000);
  auto grace = s.get_ms("SHUTDOWN_GRACE_MS", 0, 3600000);
  auto task_chars = s.get_int("TASK_MAX_CHARS", 1, 1 << 26);
  for (const auto* failed : {&port, &body, &header, &task_chars}) {
    if (!*failed) return failed->error();
  }
  for (const auto* failed : {&request_timeout, &keepalive, &grace}) {
    if (!*failed) return failed->error();
  }
  config.server.port = static_cast<unsigned short>(*port);
  config.server.body_limit = static_cast<std::size_t>(*body);
  config.server.header_limit = static_cast<std::size_t>(*header);
  config.server.request_timeout = *request_timeout;
  config.server.keepalive_timeout = *keepalive;
  config.server.shutdown_grace = *grace;
  config.limits.task_max_chars = static_cast<std::size_t>(*task_chars);
  return config;
}

}  // namespace harness::http
