// Turns one parsed request into one response: routing (404/405), the JSON
// content rules (415/400), the handler, and the last-resort 500. No I/O.
#pragma once

#include <boost/asio/awaitable.hpp>

#include "harness/http/message.hpp"
#include "harness/http/router.hpp"
#include "harness/http/services.hpp"

namespace harness::http {

// Never throws. Every response carries X-Request-Id = request.request_id.
// When `matched_pattern` is given, it receives the pattern of the route that
// matched ("/tools/{name}"), or stays empty when none did (for metrics labels).
boost::asio::awaitable<http_response> dispatch(const router& routes, services& svc, const http_request& request,
                                               std::string_view* matched_pattern = nullptr);

}  // namespace harness::http
