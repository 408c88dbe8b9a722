// `mcp-harness mcp`: code mode as a stdio MCP server, the way a desktop
// client (Claude Desktop, Claude Code, Cursor) launches one. One JSON-RPC
// message per line on stdin; answers and notifications, one per line, on
// stdout; logs on stderr only.
#pragma once

#include <memory>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "harness/mcp_server/mcp_face.hpp"

namespace harness::mcp_server {

// Largest message line taken from the client; a longer one is answered with
// a parse error and skipped.
inline constexpr std::size_t stdio_max_line = 16 << 20;

// Serves one client on the file descriptors `in` and `out` (duplicated, so
// the caller's stay open) until `in` ends, then closes the session (its
// sandbox goes) and returns. Requests are handled concurrently, so a
// notifications/cancelled reaches a running execute_code.
boost::asio::awaitable<void> serve_stdio(std::shared_ptr<mcp_face> face, core::clock& clock, std::string user_id,
                                         int in, int out);

}  // namespace harness::mcp_server
