// Plain HTTP request and response values. Route handlers see only these, never
// Beast types, so they compile fast and can be tested without a socket.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"
#include "harness/http/errors.hpp"
#include "harness/telemetry/span.hpp"

namespace harness::http {

using header_list = std::vector<std::pair<std::string, std::string>>;

// The connection a request came on, for a handler whose work should stop
// when its client goes away (MCP 2026-07-28 makes a closed connection the
// request's cancellation). Other handlers never ask: for them a client that
// leaves only loses its answer.
class client_watch {
 public:
  virtual ~client_watch() = default;
  // Runs `gone` if the client closes (or resets) its connection before this
  // request is answered; never after. Once per request.
  virtual void watch(std::function<void()> gone) = 0;
};

struct http_request {
  std::string method;                        // "GET", "POST", ... as sent
  std::string target;                        // raw request target, e.g. "/tasks?userId=a%20b"
  std::string path;                          // percent-decoded path without the query
  std::map<std::string, std::string> query;  // decoded; each key given once
  header_list headers;
  std::string body;
  std::string request_id;          // from X-Request-Id when safe, else generated
  client_watch* client = nullptr;  // the connection, while the request is handled (none in unit tests)
  // The request's server span: the parent of the work it starts (empty with tracing off and no traceparent).
  telemetry::span_parent trace;

  // First header with this name (case-insensitive), if any.
  std::optional<std::string_view> header(std::string_view name) const;
};

// A body produced piece by piece as things happen (Server-Sent Events). The
// connection sends it with chunked transfer encoding, one chunk per piece.
class body_stream {
 public:
  virtual ~body_stream() = default;
  // The next piece; nullopt at the end. The connection stops asking when the
  // client goes away or the server shuts down.
  virtual boost::asio::awaitable<std::optional<std::string>> next() = 0;
};

struct http_response {
  unsigned status = 200;
  header_list headers;  // Content-Type included; Content-Length is computed when sent
  std::string body;
  std::shared_ptr<body_stream> stream;  // when set, the body is streamed instead

  http_response& set_header(std::string name, std::string value);
  std::optional<std::string_view> header(std::string_view name) const;
};

// A JSON body with Content-Type application/json.
http_response json_response(unsigned status, const nlohmann::json& body);

// The one error shape of this API: {"error": {"code": ..., "message": ...}},
// with the HTTP status of the code (code.http_status(), see errors.hpp of each
// component). `message` says what was wrong and what to do; it never carries
// internals.
http_response error_response(error_code code, std::string_view message);

// The same for an error a service returned: its code, "message (hint)", and
// Retry-After: 5 on 429 and 503 (busy, or cannot serve now).
http_response error_response(const error& e);

// Splits "/a/b%20c?x=1&y=%2F" into a decoded path and query map. Fails with
// code "bad_target" when the target is not origin-form, holds a bad %-escape,
// or gives a query parameter twice (after decoding: "a" and "%61" are one),
// since a proxy may check one copy while a handler reads the other.
struct parsed_target {
  std::string path;
  std::map<std::string, std::string> query;
};
result<parsed_target> parse_target(std::string_view target);

bool iequals(std::string_view a, std::string_view b);

// The elements of a comma-separated field value ("gzip, chunked"), trimmed of
// spaces and tabs; empty elements are dropped, as RFC 9110 section 5.6.1 asks.
std::vector<std::string_view> split_field_list(std::string_view value);

}  // namespace harness::http
