// The HTTP/1.1 server: Beast on Asio, one coroutine per connection, keep-alive
// and pipelining, limits on everything, graceful shutdown. It parses requests,
// hands them to dispatch() and writes the responses; it owns no API logic.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "harness/core/error.hpp"
#include "harness/http/router.hpp"
#include "harness/http/services.hpp"

namespace boost::asio {
class io_context;
}

namespace harness::http {

struct server_config {
  std::string host = "127.0.0.1";
  unsigned short port = 3000;  // 0 picks a free port (start() returns it)
  std::size_t body_limit = 1024 * 1024;
  std::size_t header_limit = 16 * 1024;
  // Once the first byte of a request arrives, all of it must arrive within this
  // time, else 408 and close (slow clients cannot hold a connection forever).
  std::chrono::milliseconds request_timeout{10000};
  // How long an idle keep-alive connection may wait for its next request.
  std::chrono::milliseconds keepalive_timeout{30000};
  // After shutdown() starts, requests in flight get this long to finish.
  std::chrono::milliseconds shutdown_grace{10000};
};

class http_server {
 public:
  virtual ~http_server() = default;

  // Binds, listens and starts accepting on the io_context. Returns the bound
  // port, or an error naming the address when it cannot bind.
  virtual result<unsigned short> start() = 0;

  // Stops accepting; idle connections close at once, requests in flight finish
  // (answered with Connection: close) until shutdown_grace, then the rest are
  // closed. `done` runs on the io_context once no connection is left. Call once.
  virtual void shutdown(std::function<void()> done) = 0;
};

// `routes` and `svc` must outlive the server; everything runs on `io`'s thread.
std::unique_ptr<http_server> create_http_server(boost::asio::io_context& io, server_config config, const router& routes,
                                                services& svc);

}  // namespace harness::http
