// The status line and header block of an answer, as bytes for the wire.
//
// Written by hand rather than through Beast's serializer: for a small answer
// such as GET /health, filling Beast's field container (an allocation per
// field) and walking its buffer sequence cost more instructions than the
// rest of the request (callgrind; docs/BENCHMARKS.md, "GET /health"). The
// connection writes this block and the body with one gathered write.
// Streamed answers (SSE) still go through Beast's chunked serializer.
#pragma once

#include <string>

#include "harness/http/message.hpp"

namespace harness::http {

// Writes "HTTP/1.x <status> <reason>", the handler's headers in their order, then
// the framing, which is the server's alone (any Content-Length,
// Transfer-Encoding or Connection a handler set is dropped):
//   - Content-Length of the body, except for 1xx, 204 and 304;
//   - "Connection: close" on HTTP/1.1 when the connection closes after this
//     answer, "Connection: keep-alive" on HTTP/1.0 when it stays open.
// `head_only` (a HEAD request) changes nothing here: the Content-Length is
// the body's, which the caller then leaves out. A CR, LF or NUL inside a
// name or value becomes a space, so no header can split the block.
// Replaces `out` (whose capacity a connection reuses from answer to answer).
void write_response_head(std::string& out, const http_response& response, unsigned version, bool keep_alive);

// False for 1xx, 204 and 304: such an answer ends at its header block, even
// when a handler left a body in it.
bool status_has_body(unsigned status);

}  // namespace harness::http
