#include "response_head.hpp"

#include <string_view>

#include <boost/beast/http/status.hpp>

namespace harness::http {
namespace {

bool framing_header(std::string_view name) {
  return iequals(name, "Content-Length") || iequals(name, "Transfer-Encoding") || iequals(name, "Connection");
}

// Appends `text` with every CR, LF and NUL replaced by a space.
void append_clean(std::string& out, std::string_view text) {
  if (text.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos) {
    out.append(text);
    return;
  }
  for (char c : text) out.push_back(c == '\r' || c == '\n' || c == '\0' ? ' ' : c);
}

}  // namespace

bool status_has_body(unsigned status) {
  return status >= 200 && status != 204 && status != 304;
}

void write_response_head(std::string& out, const http_response& response, unsigned version, bool keep_alive) {
  auto reason = boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(response.status));
  out.clear();
  std::size_t size = 64 + reason.size();
  for (const auto& [name, value] : response.headers) size += name.size() + value.size() + 4;
  out.reserve(size);
  out.append(version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ");
  out.append(std::to_string(response.status));
  out.push_back(' ');
  out.append(reason.data(), reason.size());
  out.append("\r\n");
  for (const auto& [name, value] : response.headers) {
    if (framing_header(name)) continue;
    append_clean(out, name);
    out.append(": ");
    append_clean(out, value);
    out.append("\r\n");
  }
  if (status_has_body(response.status)) {
    out.append("Content-Length: ");
    out.append(std::to_string(response.body.size()));
    out.append("\r\n");
  }
  if (version == 10 && keep_alive) out.append("Connection: keep-alive\r\n");
  if (version != 10 && !keep_alive) out.append("Connection: close\r\n");
  out.append("\r\n");
}

}  // namespace harness::http
