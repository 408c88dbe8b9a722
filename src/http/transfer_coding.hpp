// How a request's body is framed, checked before any of it is read. A
// Transfer-Encoding this server reads differently from a proxy in front of it
// is how requests are smuggled: Beast takes "chunked, gzip" as "no body" and
// "gzip, chunked" as plain chunked, so such headers are refused here instead.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "harness/http/message.hpp"

namespace harness::http {

// `field_values`: every Transfer-Encoding line of the request (none: fine);
// `version`: 10 or 11. Returns the response to send, then close, or nullopt:
//   400 bad_request: on HTTP/1.0, or framing RFC 9112 section 6.1 forbids:
//       chunked missing, not last, applied twice or with parameters; a coding
//       that is not a token;
//   501 not_implemented: a coding before chunked other than chunked (gzip,
//       deflate, ...), named: the server would have to undo it.
std::optional<http_response> check_transfer_encoding(const std::vector<std::string_view>& field_values,
                                                     unsigned version);

}  // namespace harness::http
