// Runs the (coroutine) dispatcher to completion on a private io_context, so
// handler tests stay plain function calls.
#pragma once

#include <boost/asio/io_context.hpp>

#include "harness/http/dispatch.hpp"
#include "support/run_sync.hpp"

namespace harness::http {

inline http_response run_dispatch(const router& routes, services& svc, const http_request& request) {
  boost::asio::io_context io;
  return harness::testing::run_sync(io, dispatch(routes, svc, request));
}

}  // namespace harness::http
