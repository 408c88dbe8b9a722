// Test helper: a deliberately low-level HTTP/1.1 client over a plain TCP
// socket to 127.0.0.1, so tests control every byte (slow senders, pipelining,
// oversized headers) and see exactly what the server answers.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace harness::testing {

struct raw_response {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;

  nlohmann::json json() const { return nlohmann::json::parse(body); }
  std::string header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string{} : it->second;
  }
};

class raw_connection {
 public:
  explicit raw_connection(unsigned short port);  // throws when it cannot connect
  ~raw_connection();
  raw_connection(const raw_connection&) = delete;
  raw_connection& operator=(const raw_connection&) = delete;

  // Sends all bytes; false when the peer has closed or reset the connection.
  bool send(std::string_view bytes);
  // Reads one response (headers and a Content-Length or chunked body); nullopt on
  // timeout or when the connection closes first. An interim 100 Continue is
  // skipped, or returned with `interim`.
  std::optional<raw_response> read_response(std::chrono::milliseconds timeout = std::chrono::seconds(10),
                                            bool interim = false);
  // True when the server closes the connection (EOF or reset) within the timeout.
  bool wait_closed(std::chrono::milliseconds timeout);

 private:
  bool fill(std::chrono::steady_clock::time_point deadline);
  int fd_ = -1;
  std::string buffer_;
};

// One request on a fresh connection. Adds Host, Content-Length (when a body is
// given) and Connection: close.
std::optional<raw_response> http_call(unsigned short port, const std::string& method, const std::string& target,
                                      const std::string& body = {}, const std::string& content_type = {},
                                      const std::string& extra_headers = {},
                                      std::chrono::milliseconds timeout = std::chrono::seconds(10));

}  // namespace harness::testing
