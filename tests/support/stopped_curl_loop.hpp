// A curl loop that a test stops before its io_context goes. A transfer still
// out holds its completion handler, which holds the client, which holds the
// loop: without an explicit stop the loop's thread outlives the test and posts
// the transfer's end into an io_context that is gone. The harness stops its
// loop at shutdown the same way (components.cpp).
#pragma once

#include <memory>

#include "harness/net/http_client.hpp"

namespace harness::testing {

struct stopped_curl_loop {
  std::shared_ptr<net::curl_loop> loop = net::start_curl_loop();
  stopped_curl_loop() = default;
  stopped_curl_loop(const stopped_curl_loop&) = delete;
  stopped_curl_loop& operator=(const stopped_curl_loop&) = delete;
  ~stopped_curl_loop() { net::stop_curl_loop(*loop); }
};

}  // namespace harness::testing
