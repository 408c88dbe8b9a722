// Where a request comes from: the check in front of every route against DNS
// rebinding. A web page on any site can point its own name at 127.0.0.1 and
// then send requests to this server from the user's browser; the browser then
// names the attacker's host in `Host` (and its site in `Origin`). So a server
// on a loopback HOST answers only requests whose Host is a loopback name with
// this server's port, and one elsewhere only the names listed in
// ALLOWED_HOSTS. See docs/SECURITY.md ("Where a request comes from").
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/core/error.hpp"

namespace harness::http {

struct request_source_rules {
  // HOST is a loopback address: Host must be a loopback name (localhost,
  // 127.0.0.0/8, [::1]) with this server's port, or one of allowed_hosts.
  bool loopback_server = false;
  // ALLOWED_HOSTS, lower-cased: "name" (any port) or "name:port". On a server
  // that is not on loopback, an empty list accepts every Host (keys guard
  // such a server; see docs/SECURITY.md).
  std::vector<std::string> allowed_hosts = {};
  // MCP_ALLOWED_ORIGINS: browser origins (scheme://host[:port]) that /mcp
  // accepts besides this server's own.
  std::vector<std::string> mcp_allowed_origins = {};
};

class request_sources {
 public:
  request_sources() = default;  // a non-loopback server with no list: every Host, own origins only
  explicit request_sources(request_source_rules rules) : rules_(std::move(rules)) {}
  request_sources(const request_sources& other) : rules_(other.rules_), port_(other.port_.load()) {}
  request_sources& operator=(const request_sources& other) {
    rules_ = other.rules_;
    port_ = other.port_.load();
    return *this;
  }

  // The port the server listens on (known once it is bound; PORT=0 picks one).
  void set_port(unsigned short port) { port_.store(port, std::memory_order_relaxed); }

  // nullopt when `host` (the Host header's value; nullopt when the request
  // has none, as HTTP/1.0 allows and no browser does) may be served; else
  // host_not_allowed (421) naming the Host and the setting to change.
  std::optional<error> check_host(std::optional<std::string_view> host) const;

  // True when `origin` is this server's own: an http(s) origin whose
  // authority is a loopback name with this server's port or listed in
  // ALLOWED_HOSTS. A non-loopback server with no ALLOWED_HOSTS has no own
  // origin to recognise ("null" and every other origin are foreign).
  bool same_origin(std::string_view origin) const;

  // same_origin(), or listed exactly in MCP_ALLOWED_ORIGINS (case-insensitive).
  bool mcp_origin_allowed(std::string_view origin) const;

 private:
  bool loopback_with_port(std::string_view authority) const;
  bool listed_host(std::string_view authority) const;

  request_source_rules rules_;
  std::atomic<unsigned short> port_{0};
};

// ALLOWED_HOSTS's value ("harness.example.com, 10.0.0.5:3000") as lower-cased
// entries; invalid_setting for an entry that is no host name or address.
result<std::vector<std::string>> parse_allowed_hosts(std::string_view value);

}  // namespace harness::http
