// One client connection: read requests (with limits and deadlines), dispatch
// them, write responses, until the client or the server ends it.
#pragma once

#include <list>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "harness/http/router.hpp"
#include "harness/http/server.hpp"
#include "harness/http/services.hpp"

namespace harness::http {

struct tracked_connection {
  boost::asio::ip::tcp::socket* socket;
  bool busy;  // a request is being read, handled or answered
};

// What a connection needs from its server: whether it is shutting down, and a
// place to be listed so shutdown can reach it.
class connection_registry {
 public:
  virtual ~connection_registry() = default;
  virtual bool stopping() const = 0;
  virtual std::list<tracked_connection>::iterator add(boost::asio::ip::tcp::socket& socket) = 0;
  virtual void remove(std::list<tracked_connection>::iterator it) = 0;
};

boost::asio::awaitable<void> serve_connection(boost::asio::ip::tcp::socket socket, const server_config& config,
                                              const router& routes, services& svc, connection_registry& registry);

}  // namespace harness::http
