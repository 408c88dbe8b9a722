// Runs the (coroutine) dispatcher to completion on a private io_context, so
// handler tests stay plain function calls.
#pragma once

#include <boost/asio/io_context.hpp>

#include "dispatch.hpp"
#include "support/run_sync.hpp"

namespace harness::http {

// A GET of `path` (target and path alike) with a fixed request id.
inline http_request get(std::string path) {
  http_request r;
  r.method = "GET";
  r.path = r.target = std::move(path);
  r.request_id = "req_1";
  return r;
}

// A request for `target`, whose query (after '?') is parsed as the server would.
inline http_request make_request(std::string method, std::string target) {
  http_request r;
  auto query = target.find('?');
  r.method = std::move(method);
  r.target = target;
  r.path = target.substr(0, query);
  if (query != std::string::npos) {
    auto parsed = parse_target(target);
    if (parsed) r.query = parsed->query;
  }
  r.request_id = "req_1";
  return r;
}

inline http_response run_dispatch(const router& routes, services& svc, const http_request& request) {
  boost::asio::io_context io;
  return harness::testing::run_sync(io, dispatch(routes, svc, request));
}

}  // namespace harness::http
