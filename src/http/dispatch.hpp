// Turns one parsed request into one response: routing (404/405), the JSON
// content rules (415/400), the handler, and the last-resort 500. No I/O.
#pragma once

#include <optional>

#include <boost/asio/awaitable.hpp>

#include "harness/http/message.hpp"
#include "harness/http/router.hpp"
#include "harness/http/services.hpp"

namespace harness::http {

// What the access log and the metrics need to know about a dispatched request.
struct dispatch_info {
  std::string_view route;  // the matched route's pattern ("/tools/{name}"); empty when none matched
  std::string key_id;      // the caller's key id; empty when no key was admitted
};

// Never throws. Every response carries X-Request-Id = request.request_id.
// When `info` is given, it is filled in as far as the request got.
boost::asio::awaitable<http_response> dispatch(const router& routes, services& svc, const http_request& request,
                                               dispatch_info* info = nullptr);

// dispatch() without a coroutine, for every request whose answer needs no
// waiting: one refused before its handler (404, 405, 401, ...) or one whose
// route has a plain handler (GET /health's among them). nullopt, having done
// nothing but find the route, when the handler waits: then await dispatch().
// The server calls this first, so most requests cost no coroutine frame here.
std::optional<http_response> dispatch_now(const router& routes, services& svc, const http_request& request,
                                          dispatch_info* info = nullptr);

}  // namespace harness::http
