#include "harness/http/router.hpp"

#include <algorithm>
#include <string_view>

namespace harness::http {
namespace {

// The segments of a path or pattern ("/a/b" -> "a", "b"; "/" -> ""), read
// one at a time without copying: match() runs for every route on every
// request, so it allocates only for the parameters of a route that matches.
class segment_cursor {
 public:
  explicit segment_cursor(std::string_view text) : text_(text) {}
  bool at_end() const { return pos_ > text_.size(); }
  // The next segment; only when !at_end().
  std::string_view next() {
    auto slash = text_.find('/', pos_);
    if (slash == std::string_view::npos) slash = text_.size();
    auto segment = text_.substr(pos_, slash - pos_);
    pos_ = slash + 1;
    return segment;
  }
  // This segment and every one after it, with their slashes; only when !at_end().
  std::string_view rest() const { return text_.substr(pos_); }

 private:
  std::string_view text_;
  std::size_t pos_ = 1;  // skips the leading '/'
};

bool match_pattern(std::string_view pattern, std::string_view path, route_params& params) {
  segment_cursor want(pattern), have(path);
  route_params found;
  while (!want.at_end()) {
    std::string_view w = want.next();
    bool is_param = w.size() > 2 && w.front() == '{' && w.back() == '}';
    if (is_param && w.ends_with("...}")) {
      if (have.at_end()) return false;
      std::string_view rest = have.rest();
      if (rest.empty()) return false;
      found[std::string(w.substr(1, w.size() - 5))] = std::string(rest);
      params = std::move(found);
      return true;
    }
    if (have.at_end()) return false;
    std::string_view h = have.next();
    if (is_param) {
      if (h.empty()) return false;
      found[std::string(w.substr(1, w.size() - 2))] = std::string(h);
    } else if (w != h) {
      return false;
    }
  }
  if (!have.at_end()) return false;
  params = std::move(found);
  return true;
}

}  // namespace

router::router(std::vector<route> routes) : routes_(std::move(routes)) {}

router::match_result router::match(const std::string& method, const std::string& path) const {
  match_result result;
  std::string_view wanted = method == "HEAD" ? std::string_view("GET") : std::string_view(method);
  for (const auto& r : routes_) {
    route_params params;
    if (!match_pattern(r.pattern, path, params)) continue;
    if (r.method == wanted) {
      // The first route in table order wins; `allowed` is only for a 405,
      // so the rest of the table need not be walked.
      result.found = &r;
      result.params = std::move(params);
      result.allowed.clear();
      return result;
    }
    if (std::find(result.allowed.begin(), result.allowed.end(), r.method) == result.allowed.end()) {
      result.allowed.push_back(r.method);
      if (r.method == "GET") result.allowed.push_back("HEAD");
    }
  }
  return result;
}

}  // namespace harness::http
