#include "origin_check.hpp"

#include <algorithm>
#include <cctype>

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

// The host of scheme://host[:port] with no path; empty when it is not one.
std::string_view origin_host(std::string_view origin) {
  std::size_t start;
  if (origin.substr(0, 7) == "http://") {
    start = 7;
  } else if (origin.substr(0, 8) == "https://") {
    start = 8;
  } else {
    return {};
  }
  std::string_view rest = origin.substr(start);
  if (rest.empty() || rest.find_first_of("/?#@") != std::string_view::npos) return {};
  if (rest.front() == '[') {
    auto close = rest.find(']');
    if (close == std::string_view::npos) return {};
    auto after = rest.substr(close + 1);
    if (!after.empty() && after.front() != ':') return {};
    return rest.substr(0, close + 1);
  }
  return rest.substr(0, rest.find(':'));
}

}  // namespace

bool origin_allowed(std::string_view origin, const std::vector<std::string>& allowed) {
  if (std::any_of(allowed.begin(), allowed.end(), [&](const std::string& a) { return iequals(a, origin); })) {
    return true;
  }
  auto host = origin_host(origin);
  return !host.empty() && is_loopback_name(host);
}

}  // namespace harness::http
