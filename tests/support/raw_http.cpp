#include "support/raw_http.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace harness::testing {

raw_connection::raw_connection(unsigned short port) {
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd_);
    throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port));
  }
}

raw_connection::~raw_connection() {
  if (fd_ >= 0) close(fd_);
}

bool raw_connection::send(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool raw_connection::fill(std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return false;
  pollfd pfd{fd_, POLLIN, 0};
  if (poll(&pfd, 1, static_cast<int>(left.count())) <= 0) return false;
  char buf[16384];
  ssize_t n = recv(fd_, buf, sizeof buf, 0);
  if (n <= 0) return false;
  buffer_.append(buf, static_cast<std::size_t>(n));
  return true;
}

std::optional<raw_response> raw_connection::read_response(std::chrono::milliseconds timeout, bool interim) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::size_t header_end;
  while ((header_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (!fill(deadline)) return std::nullopt;
  }
  raw_response response;
  std::string head = buffer_.substr(0, header_end);
  auto line_end = head.find("\r\n");
  std::string status_line = head.substr(0, line_end);
  if (status_line.size() < 12) return std::nullopt;
  response.status = std::stoi(status_line.substr(9, 3));
  std::size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
  while (pos < head.size()) {
    auto end = head.find("\r\n", pos);
    if (end == std::string::npos) end = head.size();
    std::string line = head.substr(pos, end - pos);
    auto colon = line.find(':');
    if (colon != std::string::npos) {
      std::string name = line.substr(0, colon);
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(' '));
      response.headers[name] = value;
    }
    pos = end + 2;
  }
  buffer_.erase(0, header_end + 4);
  if (response.status == 100) return interim ? std::optional<raw_response>(response) : read_response(timeout);
  if (response.header("transfer-encoding") == "chunked") {
    // Chunks ("<hex size>\r\n<data>\r\n") until the zero-size one; the body is their concatenation.
    for (;;) {
      std::size_t size_end;
      while ((size_end = buffer_.find("\r\n")) == std::string::npos) {
        if (!fill(deadline)) return std::nullopt;
      }
      std::size_t size = std::stoul(buffer_.substr(0, size_end), nullptr, 16);
      while (buffer_.size() < size_end + 2 + size + 2) {
        if (!fill(deadline)) return std::nullopt;
      }
      response.body += buffer_.substr(size_end + 2, size);
      buffer_.erase(0, size_end + 2 + size + 2);
      if (size == 0) return response;
    }
  }
  std::size_t length = 0;
  if (auto it = response.headers.find("content-length"); it != response.headers.end()) length = std::stoul(it->second);
  while (buffer_.size() < length) {
    if (!fill(deadline)) return std::nullopt;
  }
  response.body = buffer_.substr(0, length);
  buffer_.erase(0, length);
  return response;
}

bool raw_connection::wait_closed(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd pfd{fd_, POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(left.count())) <= 0) return false;
    char buf[4096];
    ssize_t n = recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return true;
  }
}

std::optional<raw_response> http_call(unsigned short port, const std::string& method, const std::string& target,
                                      const std::string& body, const std::string& content_type,
                                      const std::string& extra_headers, std::chrono::milliseconds timeout) {
  raw_connection connection(port);
  // The Host a client of a loopback server sends: its address and port.
  std::string request =
      method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\nConnection: close\r\n";
  if (!content_type.empty()) request += "Content-Type: " + content_type + "\r\n";
  if (!body.empty() || method == "POST") request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  request += extra_headers + "\r\n" + body;
  if (!connection.send(request)) return std::nullopt;
  return connection.read_response(timeout);
}

}  // namespace harness::testing
