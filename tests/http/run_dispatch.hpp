// Runs the (coroutine) dispatcher to completion on a private io_context, so
// handler tests stay plain function calls.
#pragma once

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include "harness/http/dispatch.hpp"

namespace harness::http {

inline http_response run_dispatch(const router& routes, services& svc, const http_request& request) {
  boost::asio::io_context io;
  auto future = boost::asio::co_spawn(io, dispatch(routes, svc, request), boost::asio::use_future);
  io.run();
  return future.get();
}

}  // namespace harness::http
