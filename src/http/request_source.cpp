#include "harness/http/request_source.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "harness/core/errors.hpp"
#include "harness/http/errors.hpp"
#include "harness/http/message.hpp"

namespace harness::http {
namespace {

bool is_loopback_name(std::string_view host) {
  if (iequals(host, "localhost") || host == "[::1]") return true;
  // 127.x.y.z: four dot-separated numbers, the first 127.
  if (host.substr(0, 4) != "127.") return false;
  int dots = 0;
  for (char c : host) {
    if (c == '.') {
      ++dots;
    } else if (!std::isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return dots == 3;
}

struct authority {
  std::string_view host;  // "localhost", "127.0.0.1", "[::1]"
  std::string_view port;  // "3000"; empty when none was given
  bool valid = false;
};

// host[:port] as a Host header or an origin gives it. A bracketed IPv6
// address keeps its brackets; anything with a path, user info or stray
// characters is not valid.
authority split_authority(std::string_view text) {
  authority out;
  if (text.empty() || text.find_first_of("/?#@ \t\\") != std::string_view::npos) return out;
  std::string_view rest;
  if (text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos) return out;
    out.host = text.substr(0, close + 1);
    rest = text.substr(close + 1);
  } else {
    auto colon = text.find(':');
    out.host = text.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view() : text.substr(colon);
  }
  if (!rest.empty()) {
    if (rest.front() != ':' || rest.size() == 1 || rest.size() > 6) return out;
    out.port = rest.substr(1);
    if (!std::all_of(out.port.begin(), out.port.end(), [](char c) { return c >= '0' && c <= '9'; })) return out;
  }
  out.valid = !out.host.empty();
  return out;
}

// The authority of an http(s) origin; empty when `origin` is none ("null", a path, another scheme).
std::string_view origin_authority(std::string_view origin) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (origin.size() > scheme.size() && iequals(origin.substr(0, scheme.size()), scheme)) {
      return origin.substr(scheme.size());
    }
  }
  return {};
}

std::string clipped(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 100)) out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  return text.size() > 100 ? out + "..." : out;
}

}  // namespace

bool request_sources::loopback_with_port(std::string_view text) const {
  auto a = split_authority(text);
  if (!a.valid || !is_loopback_name(a.host)) return false;
  const unsigned short port = port_.load(std::memory_order_relaxed);
  // A browser leaves the port out only when it is the scheme's default.
  if (a.port.empty()) return port == 80;
  unsigned value = 0;
  auto [end, ec] = std::from_chars(a.port.data(), a.port.data() + a.port.size(), value);
  return ec == std::errc() && end == a.port.data() + a.port.size() && a.port.front() != '0' && value == port;
}

bool request_sources::listed_host(std::string_view text) const {
  auto a = split_authority(text);
  if (!a.valid) return false;
  for (const auto& entry : rules_.allowed_hosts) {
    auto e = split_authority(entry);
    if (!iequals(e.host, a.host)) continue;
    if (e.port.empty() || e.port == a.port) return true;
  }
  return false;
}

std::optional<error> request_sources::check_host(std::optional<std::string_view> host) const {
  if (!host) return std::nullopt;
  if (!rules_.loopback_server && rules_.allowed_hosts.empty()) return std::nullopt;
  if (loopback_with_port(*host) || listed_host(*host)) return std::nullopt;
  const unsigned short port = port_.load(std::memory_order_relaxed);
  auto hint = rules_.loopback_server
                  ? fmt::format(
                        "this server listens on a loopback address and answers to localhost:{0}, "
                        "127.0.0.1:{0} and [::1]:{0}; if a proxy in front of it sends another name, add that "
                        "name to ALLOWED_HOSTS",
                        port)
                  : std::string("add the name clients use for this server to ALLOWED_HOSTS");
  return make_error(http::errc::host_not_allowed,
                    fmt::format("Host '{}' is not a name of this server (requests naming other hosts are refused "
                                "against DNS rebinding)",
                                clipped(*host)),
                    std::move(hint));
}

bool request_sources::same_origin(std::string_view origin) const {
  auto a = origin_authority(origin);
  return !a.empty() && (loopback_with_port(a) || listed_host(a));
}

bool request_sources::mcp_origin_allowed(std::string_view origin) const {
  const auto& listed = rules_.mcp_allowed_origins;
  if (std::any_of(listed.begin(), listed.end(), [&](const std::string& o) { return iequals(o, origin); })) return true;
  return same_origin(origin);
}

result<std::vector<std::string>> parse_allowed_hosts(std::string_view value) {
  std::vector<std::string> out;
  for (auto item : split_field_list(value)) {
    auto a = split_authority(item);
    if (!a.valid || a.host.find_first_of("*<>\"'") != std::string_view::npos) {
      return make_error(core::errc::invalid_setting,
                        fmt::format("ALLOWED_HOSTS has '{}', which is no host name", clipped(item)),
                        "list names as clients send them in Host: name or name:port, e.g. harness.example.com");
    }
    std::string entry(item);
    std::transform(entry.begin(), entry.end(), entry.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace harness::http
