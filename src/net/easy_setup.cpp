#include "easy_setup.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "harness/core/version.hpp"
#include "harness/net/address_guard.hpp"
#include "harness/net/errors.hpp"
#include "harness/net/url.hpp"

namespace harness::net::detail {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == '\r' || text.back() == '\n' || text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  return text;
}

// "HTTP/1.1 200 OK", "HTTP/2 401" -> the status code, or 0.
long status_of(std::string_view line) {
  const auto space = line.find(' ');
  if (space == std::string_view::npos) return 0;
  long code = 0;
  for (std::size_t i = space + 1; i < line.size() && i < space + 4; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(line[i]))) return 0;
    code = code * 10 + (line[i] - '0');
  }
  return code;
}

// The head is complete: a stream's open() gets its stream; a fetch goes on reading.
void head_arrived(transfer& t) {
  if (t.head_done) return;
  t.head_done = true;
  if (t.streaming && t.on_head) {
    auto waiter = std::move(*t.on_head);
    t.on_head.reset();
    std::move(waiter).complete(t.stream);
  }
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto& t = *static_cast<transfer*>(user);
  const std::size_t n = size * count;
  std::string_view line(data, n);
  if (t.head_done) return n;  // trailers: the head is already in the reader's hands
  if (line.rfind("HTTP/", 0) == 0) {
    t.head = {};  // a new response: after 100 Continue, or a retry on a fresh connection
    t.head.status = status_of(line);
    return n;
  }
  if (trim(line).empty()) {
    // The end of a head; a 1xx head is followed by the real one.
    if (t.head.status >= 200) head_arrived(t);
    return n;
  }
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  t.head.headers.emplace_back(lower(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 1))));
  return n;
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto& t = *static_cast<transfer*>(user);
  const std::size_t n = size * count;
  head_arrived(t);
  if (!t.streaming) {
    if (t.body.size() + n > t.req.max_response_bytes) {
      t.too_large = true;
      return CURL_WRITEFUNC_ERROR;
    }
    t.body.append(data, n);
    return n;
  }
  auto& s = *t.stream;
  std::optional<held_handler<std::string>> reader;
  std::string piece;
  {
    std::lock_guard lock(s.mutex);
    if (s.unread.size() >= t.stream_buffer_bytes) {
      // curl keeps this piece and offers it again once the reader resumes us.
      s.paused = true;
      return CURL_WRITEFUNC_PAUSE;
    }
    s.unread.append(data, n);
    if (s.reader) {
      reader = std::move(s.reader);
      s.reader.reset();
      piece = std::move(s.unread);
      s.unread.clear();
    }
  }
  if (reader) std::move(*reader).complete(std::move(piece));
  return n;
}

// CURLOPT_OPENSOCKETFUNCTION of a public_only request: libcurl has resolved
// the host and asks for a socket to connect to `address`; a non-public one
// gets none, so the connection fails before a byte is sent. Runs for every
// address curl tries (happy eyeballs included).
curl_socket_t open_public_socket(void* user, curlsocktype purpose, curl_sockaddr* address) {
  auto& t = *static_cast<transfer*>(user);
  if (purpose != CURLSOCKTYPE_IPCXN) return CURL_SOCKET_BAD;
  const auto* target = reinterpret_cast<const sockaddr*>(&address->addr);
  if (!is_public_address(target)) {
    if (t.refused_address.empty()) t.refused_address = address_text(target);
    return CURL_SOCKET_BAD;
  }
  return ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

// The proxy a request whose URL a remote party chose goes through, decided
// here rather than by libcurl's reading of the environment, so that the
// address check below holds for every request that goes direct: the
// configured one, else the environment's for the scheme as libcurl reads it
// (http_proxy; https_proxy or HTTPS_PROXY; all_proxy or ALL_PROXY). No host
// bypasses it (no_proxy is not honoured for these requests): a no_proxy list
// names exactly the internal hosts that must not be reached. "" is direct.
std::string public_request_proxy(const std::optional<std::string>& configured, const std::string& scheme) {
  if (configured) return *configured;
  const bool https = scheme == "https";
  const std::vector<const char*> names =
      https ? std::vector<const char*>{"https_proxy", "HTTPS_PROXY"} : std::vector<const char*>{"http_proxy"};
  for (const char* name : names) {
    if (const char* value = std::getenv(name); value && *value) return value;
  }
  for (const char* name : {"all_proxy", "ALL_PROXY"}) {
    if (const char* value = std::getenv(name); value && *value) return value;
  }
  return {};
}

bool is_tls_failure(CURLcode code) {
  switch (code) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_SHUTDOWN_FAILED:
      return true;
    default:
      return false;
  }
}

}  // namespace

transfer::~transfer() {
  if (easy) curl_easy_cleanup(easy);
  if (header_lines) curl_slist_free_all(header_lines);
}

status configure(transfer& t) {
  const auto& r = t.req;
  const auto& options = t.owner->options;
  // http(s) only, a host, no credentials: the same rules as everywhere else.
  if (auto parsed = parse_url(r.url); !parsed) return parsed.error();
  for (const auto& [name, value] : r.headers) {
    if ((name + value).find_first_of("\r\n") != std::string::npos) {
      // The value is not echoed: it may be a key.
      return make_error(net::errc::bad_url, fmt::format("HTTP header '{}' contains a line break", name),
                        "check the setting or configuration it came from for stray newlines");
    }
    t.header_lines = curl_slist_append(t.header_lines, (name + ": " + value).c_str());
  }
  t.header_lines = curl_slist_append(t.header_lines, "Expect:");  // no 100-continue round trip
  t.easy = curl_easy_init();
  if (!t.easy || !t.header_lines)
    return make_error(net::errc::connection_failed, "libcurl could not allocate a transfer");
  static const std::string default_agent = std::string("mcp-harness/") + harness::core::version();
  CURL* e = t.easy;
  curl_easy_setopt(e, CURLOPT_URL, r.url.c_str());
  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  // Verification is never turned off; HTTP/2 when the server offers it over TLS.
  curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(e, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
  const auto& proxy = r.proxy ? r.proxy : options.proxy;
  if (proxy) curl_easy_setopt(e, CURLOPT_PROXY, proxy->c_str());  // else curl reads the environment's
  curl_easy_setopt(e, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);
  if (r.method == "GET") {
    curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
  } else if (r.method == "POST") {
    curl_easy_setopt(e, CURLOPT_POST, 1L);
  } else {
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r.method.c_str());
  }
  if (r.method == "POST" || !r.body.empty()) {
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, r.body.data());
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
  }
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, t.header_lines);
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout.count()));
  // A fetch is decoded as it comes; a stream is passed on as sent (SSE is text, never compressed by servers we know).
  if (!t.streaming) curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(e, CURLOPT_USERAGENT,
                   options.user_agent.empty() ? default_agent.c_str() : options.user_agent.c_str());
  curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t.error_buffer);
  if (r.public_only) {
    // Through a proxy the socket goes to the proxy, whose address the check
    // cannot judge: the proxy must filter. Every other such request is checked.
    const std::string via = public_request_proxy(proxy, parse_url(r.url)->scheme);
    curl_easy_setopt(e, CURLOPT_PROXY, via.c_str());  // "" turns the environment's proxies off
    curl_easy_setopt(e, CURLOPT_NOPROXY, "");         // and no host bypasses the one chosen
    if (via.empty()) {
      curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, open_public_socket);
      curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, &t);
    }
    // A cached connection was checked for another request, perhaps not at all, perhaps to an address the name
    // pointed to then: this one opens its own and keeps it to itself.
    curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L);
    curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L);
  }
  return {};
}

error describe_failure(const transfer& t, CURLcode code) {
  const std::string url = printable_url(t.req.url);
  const std::string detail = t.error_buffer[0] ? t.error_buffer : curl_easy_strerror(code);
  if (code == CURLE_WRITE_ERROR && t.too_large) {
    return make_error(net::errc::response_too_large,
                      fmt::format("the answer from {} exceeded {} bytes", url, t.req.max_response_bytes));
  }
  if (!t.refused_address.empty()) {
    return make_error(net::errc::address_refused,
                      fmt::format("{} resolves to {}, which is not on the public internet (loopback, a private or a "
                                  "link-local network): not contacted",
                                  url, t.refused_address),
                      "a remote server chose this URL; if the server really lives on your own network, set "
                      "\"allowPrivateNetwork\": true in its mcpServers entry");
  }
  if (code == CURLE_OPERATION_TIMEDOUT) {
    return make_error(net::errc::timeout, fmt::format("{} did not answer in time: {}", url, detail),
                      "check that the server is up and reachable");
  }
  if (is_tls_failure(code)) {
    return make_error(net::errc::tls_failed, fmt::format("TLS with {} failed: {}", url, detail),
                      "certificates are always verified: the server needs a certificate for its host name from a "
                      "CA the system trusts, or from one in TLS_EXTRA_CA_FILE");
  }
  if (code == CURLE_UNSUPPORTED_PROTOCOL || code == CURLE_URL_MALFORMAT) {
    return make_error(net::errc::bad_url, fmt::format("cannot request {}: {}", url, detail));
  }
  return make_error(net::errc::connection_failed, fmt::format("could not talk to {}: {}", url, detail),
                    "check the URL and that the server is reachable");
}

void deliver(transfer& t, std::optional<error> failure) {
  if (t.on_fetched) {
    auto waiter = std::move(*t.on_fetched);
    t.on_fetched.reset();
    if (failure) {
      std::move(waiter).complete(std::move(*failure));
    } else {
      response r;
      static_cast<response_head&>(r) = std::move(t.head);
      r.body = std::move(t.body);
      std::move(waiter).complete(std::move(r));
    }
    return;
  }
  if (!t.streaming) return;
  if (!failure) head_arrived(t);  // a body-less answer whose head end we did not see
  if (t.on_head) {
    auto waiter = std::move(*t.on_head);
    t.on_head.reset();
    std::move(waiter).complete(std::move(*failure));
    return;
  }
  auto& s = *t.stream;
  std::optional<held_handler<std::string>> reader;
  std::optional<error> outcome = std::move(failure);
  {
    std::lock_guard lock(s.mutex);
    s.ended = true;
    s.failure = outcome;
    if (s.reader) {
      reader = std::move(s.reader);
      s.reader.reset();
    }
  }
  // A waiting reader had found nothing unread, so it gets the end (or the failure).
  if (reader) {
    if (outcome) {
      std::move(*reader).complete(std::move(*outcome));
    } else {
      std::move(*reader).complete(std::string());
    }
  }
}

}  // namespace harness::net::detail
