// The Origin check of /mcp, which MCP's Streamable HTTP transport requires
// against DNS rebinding: a web page the user opens must not reach a server on
// their own machine through a hostname that resolves to 127.0.0.1.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace harness::http {

// True for an origin whose host is a loopback name (localhost, 127.0.0.0/8,
// [::1]) over http or https, and for one listed exactly in `allowed`
// (scheme://host[:port], compared case-insensitively). Anything else, "null"
// included, is refused. Requests without an Origin (every non-browser
// client) are not checked.
bool origin_allowed(std::string_view origin, const std::vector<std::string>& allowed);

}  // namespace harness::http
