#include "harness/http/message.hpp"
#include "harness/http/errors.hpp"

#include "harness/core/error_json.hpp"

#include <fmt/format.h>

namespace harness::http {
namespace {

std::optional<std::string_view> find_header(const header_list& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (iequals(key, name)) return std::string_view(value);
  }
  return std::nullopt;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decodes; '+' becomes a space only in query strings (form encoding).
std::optional<std::string> decode(std::string_view in, bool plus_is_space) {
  // Most paths and parameters have nothing to decode: copied whole.
  if (in.find('%') == std::string_view::npos && (!plus_is_space || in.find('+') == std::string_view::npos)) {
    return std::string(in);
  }
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return std::nullopt;
      int hi = hex_value(in[i + 1]);
      int lo = hex_value(in[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  // ASCII only, as HTTP's case-insensitive tokens are (and as std::tolower
  // is in the C locale), without a library call per character.
  const auto lower = [](unsigned char c) { return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c; };
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(static_cast<unsigned char>(a[i])) != lower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

std::vector<std::string_view> split_field_list(std::string_view value) {
  std::vector<std::string_view> items;
  while (!value.empty()) {
    auto comma = value.find(',');
    std::string_view item = value.substr(0, comma);
    value = comma == std::string_view::npos ? std::string_view{} : value.substr(comma + 1);
    auto first = item.find_first_not_of(" \t");
    if (first == std::string_view::npos) continue;
    items.push_back(item.substr(first, item.find_last_not_of(" \t") - first + 1));
  }
  return items;
}

std::optional<std::string_view> http_request::header(std::string_view name) const {
  return find_header(headers, name);
}

std::optional<std::string_view> http_response::header(std::string_view name) const {
  return find_header(headers, name);
}

http_response& http_response::set_header(std::string name, std::string value) {
  for (auto& [key, existing] : headers) {
    if (iequals(key, name)) {
      existing = std::move(value);
      return *this;
    }
  }
  // Content-Type, Cache-Control and X-Request-Id, and seldom more: room for
  // four at the first, rather than growing the list one header at a time.
  if (headers.empty()) headers.reserve(4);
  headers.emplace_back(std::move(name), std::move(value));
  return *this;
}

http_response json_response(unsigned status, const nlohmann::json& body) {
  http_response response;
  response.status = status;
  response.set_header("Content-Type", "application/json");
  // Invalid UTF-8 that slipped into a value is replaced, never thrown on.
  response.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return response;
}

http_response error_response(error_code code, std::string_view message) {
  return json_response(code.http_status(), {{"error", error_json(error(code, std::string(message)))}});
}

http_response error_response(const error& e) {
  auto response = error_response(e.code, e.describe());
  // A service that is busy or cannot serve now may well serve in a moment.
  if (response.status == 429 || response.status == 503) response.set_header("Retry-After", "5");
  return response;
}

result<parsed_target> parse_target(std::string_view target) {
  const auto not_a_path = [] {
    return make_error(http::errc::bad_target, "the request target is not a valid path; percent-encode it");
  };
  if (target.empty() || target[0] != '/') return not_a_path();
  auto question = target.find('?');
  auto fragment = target.find('#');
  std::string_view raw_path = target.substr(0, std::min(question, fragment));
  parsed_target out;
  auto path = decode(raw_path, false);
  if (!path) return not_a_path();
  out.path = std::move(*path);
  if (question == std::string_view::npos) return out;
  std::string_view query = target.substr(
      question + 1, fragment == std::string_view::npos ? std::string_view::npos : fragment - question - 1);
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (pair.empty()) continue;
    auto eq = pair.find('=');
    auto key = decode(pair.substr(0, eq), true);
    auto value = decode(eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1), true);
    if (!key || !value) return not_a_path();
    if (!out.query.try_emplace(std::move(*key), std::move(*value)).second) {  // leaves *key alone when present
      return make_error(http::errc::bad_target,
                        fmt::format("the query parameter '{}' is given twice; send it once", key->substr(0, 60)));
    }
  }
  return out;
}

}  // namespace harness::http
