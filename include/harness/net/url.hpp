// URLs as OAuth and the MCP transport need them: parsed by libcurl's URL API,
// origins, well-known locations, and the form and query encodings.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/core/error.hpp"

namespace harness::net {

struct url_parts {
  std::string scheme;  // "http" or "https", lower case
  std::string host;    // lower case; an IPv6 address keeps its brackets
  std::string port;    // empty for the scheme's default
  std::string path;    // "/" at least
  std::string query;   // without the '?'; empty when none
};

// Parses an absolute http(s) URL (the fragment is dropped). Errors: bad_url.
result<url_parts> parse_url(std::string_view url);

// The URL without its query and fragment (they may carry secrets), for
// messages and logs.
std::string printable_url(std::string_view url);

// "https://host[:port]".
std::string origin_of(const url_parts& url);
// The URL without its fragment: origin, path and query.
std::string to_string(const url_parts& url);

// `reference` resolved against `base` (RFC 3986): an absolute URL stays as it is.
result<std::string> resolve_url(std::string_view base, std::string_view reference);

// RFC 8615's well-known location for `suffix` ("oauth-protected-resource")
// of `url`: inserted between the host and the path, the path kept
// ("https://h/tenant/mcp" -> "https://h/.well-known/<suffix>/tenant/mcp");
// with `keep_path` false, the root one ("https://h/.well-known/<suffix>").
std::string well_known_url(const url_parts& url, std::string_view suffix, bool keep_path);

// Percent-encodes everything but RFC 3986's unreserved characters.
std::string url_escape(std::string_view text);
// application/x-www-form-urlencoded (also a URL's query): name=value&...
std::string form_encode(const std::vector<std::pair<std::string, std::string>>& fields);
// The reverse, '+' read as a space; a malformed escape is kept as it is.
std::vector<std::pair<std::string, std::string>> form_decode(std::string_view text);

}  // namespace harness::net
