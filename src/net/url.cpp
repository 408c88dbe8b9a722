#include "harness/net/url.hpp"

#include <cctype>
#include <memory>

#include <curl/curl.h>

#include "harness/net/errors.hpp"

namespace harness::net {
namespace {

struct url_handle_deleter {
  void operator()(CURLU* u) const { curl_url_cleanup(u); }
};
using url_handle = std::unique_ptr<CURLU, url_handle_deleter>;

std::string part(CURLU* u, CURLUPart which, unsigned flags = 0) {
  char* value = nullptr;
  if (curl_url_get(u, which, &value, flags) != CURLUE_OK || !value) return {};
  std::string out(value);
  curl_free(value);
  return out;
}

std::string lower(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

result<url_parts> parse_url(std::string_view url) {
  url_handle u(curl_url());
  const std::string text(url);
  if (!u || curl_url_set(u.get(), CURLUPART_URL, text.c_str(), CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK) {
    return make_error(net::errc::bad_url, "not a valid URL: " + text.substr(0, text.find_first_of("?#")));
  }
  url_parts out;
  out.scheme = lower(part(u.get(), CURLUPART_SCHEME));
  if (out.scheme != "http" && out.scheme != "https") {
    return make_error(net::errc::bad_url,
                      "not an http:// or https:// URL: " + text.substr(0, text.find_first_of("?#")));
  }
  if (!part(u.get(), CURLUPART_USER).empty()) {
    return make_error(net::errc::bad_url, "credentials in the URL are not supported",
                      "send them in a header (Authorization) instead");
  }
  out.host = lower(part(u.get(), CURLUPART_HOST));
  if (out.host.empty()) return make_error(net::errc::bad_url, "no host in " + text.substr(0, text.find_first_of("?#")));
  out.port = part(u.get(), CURLUPART_PORT);
  if ((out.scheme == "http" && out.port == "80") || (out.scheme == "https" && out.port == "443")) out.port.clear();
  out.path = part(u.get(), CURLUPART_PATH);
  if (out.path.empty()) out.path = "/";
  out.query = part(u.get(), CURLUPART_QUERY);
  return out;
}

std::string printable_url(std::string_view url) {
  return std::string(url.substr(0, url.find_first_of("?#")));
}

std::string origin_of(const url_parts& url) {
  return url.scheme + "://" + url.host + (url.port.empty() ? "" : ":" + url.port);
}

std::string to_string(const url_parts& url) {
  return origin_of(url) + url.path + (url.query.empty() ? "" : "?" + url.query);
}

result<std::string> resolve_url(std::string_view base, std::string_view reference) {
  url_handle u(curl_url());
  const std::string b(base), r(reference);
  if (!u || curl_url_set(u.get(), CURLUPART_URL, b.c_str(), 0) != CURLUE_OK ||
      curl_url_set(u.get(), CURLUPART_URL, r.c_str(), 0) != CURLUE_OK) {
    return make_error(net::errc::bad_url, "cannot resolve " + r.substr(0, r.find_first_of("?#")));
  }
  auto parsed = parse_url(part(u.get(), CURLUPART_URL));
  if (!parsed) return parsed.error();
  return to_string(*parsed);
}

std::string well_known_url(const url_parts& url, std::string_view suffix, bool keep_path) {
  std::string path = keep_path && url.path != "/" ? url.path : "";
  while (!path.empty() && path.back() == '/') path.pop_back();
  return origin_of(url) + "/.well-known/" + std::string(suffix) + path;
}

std::string url_escape(std::string_view text) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

std::string form_encode(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    if (!out.empty()) out += '&';
    out += url_escape(name) + "=" + url_escape(value);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> form_decode(std::string_view text) {
  auto unescape = [](std::string_view in) {
    std::string out;
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (in[i] == '+') {
        out.push_back(' ');
      } else if (in[i] == '%' && i + 2 < in.size() && std::isxdigit(static_cast<unsigned char>(in[i + 1])) &&
                 std::isxdigit(static_cast<unsigned char>(in[i + 2]))) {
        out.push_back(static_cast<char>(std::stoi(std::string(in.substr(i + 1, 2)), nullptr, 16)));
        i += 2;
      } else {
        out.push_back(in[i]);
      }
    }
    return out;
  };
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('&', pos);
    if (end == std::string_view::npos) end = text.size();
    auto field = text.substr(pos, end - pos);
    if (!field.empty()) {
      const auto eq = field.find('=');
      out.emplace_back(unescape(field.substr(0, eq)),
                       eq == std::string_view::npos ? std::string() : unescape(field.substr(eq + 1)));
    }
    pos = end + 1;
  }
  return out;
}

}  // namespace harness::net
