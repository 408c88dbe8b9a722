#include "harness/http/router.hpp"

#include <algorithm>
#include <string_view>

namespace harness::http {
namespace {

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> segments;
  std::size_t pos = 1;  // skip the leading '/'
  while (pos <= path.size()) {
    auto slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    segments.push_back(path.substr(pos, slash - pos));
    pos = slash + 1;
  }
  return segments;
}

bool match_pattern(std::string_view pattern, std::string_view path, route_params& params) {
  auto want = split_path(pattern);
  auto have = split_path(path);
  route_params found;
  for (std::size_t i = 0; i < want.size(); ++i) {
    std::string_view w = want[i];
    bool is_param = w.size() > 2 && w.front() == '{' && w.back() == '}';
    if (is_param && w.ends_with("...}")) {
      if (i >= have.size()) return false;
      std::string rest;
      for (std::size_t j = i; j < have.size(); ++j) {
        if (j > i) rest.push_back('/');
        rest.append(have[j]);
      }
      if (rest.empty()) return false;
      found[std::string(w.substr(1, w.size() - 5))] = rest;
      params = std::move(found);
      return true;
    }
    if (i >= have.size()) return false;
    if (is_param) {
      if (have[i].empty()) return false;
      found[std::string(w.substr(1, w.size() - 2))] = std::string(have[i]);
    } else if (w != have[i]) {
      return false;
    }
  }
  if (want.size() != have.size()) return false;
  params = std::move(found);
  return true;
}

}  // namespace

router::router(std::vector<route> routes) : routes_(std::move(routes)) {}

router::match_result router::match(const std::string& method, const std::string& path) const {
  match_result result;
  const std::string& wanted = method == "HEAD" ? std::string("GET") : method;
  for (const auto& r : routes_) {
    route_params params;
    if (!match_pattern(r.pattern, path, params)) continue;
    if (r.method == wanted && !result.found) {
      result.found = &r;
      result.params = std::move(params);
    }
    if (std::find(result.allowed.begin(), result.allowed.end(), r.method) == result.allowed.end()) {
      result.allowed.push_back(r.method);
      if (r.method == "GET") result.allowed.push_back("HEAD");
    }
  }
  if (result.found) result.allowed.clear();
  return result;
}

}  // namespace harness::http
