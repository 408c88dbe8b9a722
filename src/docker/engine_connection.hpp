// One connection to the engine (unix socket, tcp or tls), hidden behind a small
// interface so the client and the attach stream are written once. Internal to
// src/docker: Beast and Asio stay out of the public headers.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "harness/core/error.hpp"
#include "harness/docker/engine_endpoint.hpp"

namespace harness::docker::detail {

namespace http = boost::beast::http;
using request = http::request<http::string_body>;
using response = http::response<http::string_body>;

class connection {
 public:
  virtual ~connection() = default;

  // Sends req and reads the whole response (body at most body_limit bytes).
  virtual boost::asio::awaitable<result<response>> round_trip(request& req, std::chrono::milliseconds timeout,
                                                              std::size_t body_limit) = 0;

  // Sends an upgrade request and reads only the response header. On 101/200 the
  // connection becomes a raw byte stream; bytes already read past the header are
  // in leftover(). Any other status comes back with its body.
  virtual boost::asio::awaitable<result<response>> upgrade(request& req, std::chrono::milliseconds timeout) = 0;
  virtual std::string take_leftover() = 0;

  // Raw stream operations after upgrade(). read_some returns 0 bytes at end of stream.
  virtual boost::asio::awaitable<result<std::size_t>> read_some(char* data, std::size_t size,
                                                                std::chrono::milliseconds timeout) = 0;
  virtual boost::asio::awaitable<status> write_all(const char* data, std::size_t size,
                                                   std::chrono::milliseconds timeout) = 0;
  virtual status shutdown_send() = 0;
  virtual void close() = 0;
};

// Connects within timeout. docker_unreachable (with the endpoint and a hint) on failure.
boost::asio::awaitable<result<std::unique_ptr<connection>>> connect(boost::asio::any_io_executor executor,
                                                                    const engine_endpoint& endpoint,
                                                                    std::chrono::milliseconds timeout);

}  // namespace harness::docker::detail
