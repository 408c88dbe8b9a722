// The one outbound HTTP client: the LLM providers, the MCP Streamable HTTP
// transport and OAuth all send their requests through it. It runs on libcurl's
// multi interface, driven by an Asio io_context on a thread of its own, so no
// DNS lookup, TLS handshake or slow peer ever holds up the server's I/O
// thread; every completion is posted back to the awaiting coroutine's
// executor.
//
// TLS: certificates and host names are always verified, against the system CA
// store plus an optional extra CA file (TLS_EXTRA_CA_FILE); HTTP/2 is used
// where the server offers it. Proxies come from the standard environment
// variables (https_proxy, http_proxy, no_proxy, all_proxy) unless a request
// names its own. Redirects are never followed: a 3xx is an answer like any
// other (OAuth and MCP decide themselves what a redirect may mean).
//
// Thread-safety: an http_client may be used from any thread; a
// response_stream belongs to the coroutine that opened it.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "harness/core/error.hpp"

namespace harness::net {

using header_list = std::vector<std::pair<std::string, std::string>>;

struct request {
  std::string method = "GET";  // GET, POST, PUT, PATCH, DELETE
  std::string url;             // absolute http:// or https:// URL, no credentials in it
  header_list headers;         // values must not contain line breaks
  std::string body;            // sent when non-empty, or for POST
  // fetch(): the whole exchange, waiting for a free slot included. open(): up
  // to the response's head; reading the body has its own per-read deadlines.
  std::chrono::milliseconds timeout{30000};
  // fetch() fails with response_too_large past this many body bytes.
  std::size_t max_response_bytes = 16 * 1024 * 1024;
  // nullopt: the client's proxy (by default the environment's); "": no proxy;
  // else a proxy URL for this request.
  std::optional<std::string> proxy;
  // The URL came from a remote party (OAuth discovery): connect only to a
  // public address (address_guard.hpp), checked on the address libcurl
  // connects to, on a fresh connection; else address_refused. no_proxy is
  // not honoured: such a request goes through the scheme's proxy or direct.
  bool public_only = false;
};

struct response_head {
  long status = 0;
  header_list headers;  // names lower-cased, in the order received (a name may repeat)
  // The last value of a header (name in lower case), if any.
  std::optional<std::string> header(std::string_view name) const;
  // Every value of a header, in order (WWW-Authenticate may come more than once).
  std::vector<std::string> header_values(std::string_view name) const;
};

struct response : response_head {
  std::string body;
};

// The body of a response as it arrives (an SSE stream, a large download).
// Destroying it aborts the transfer if it is still running.
class response_stream {
 public:
  virtual ~response_stream() = default;
  virtual const response_head& head() const = 0;
  // The next piece of the body; an empty string once the body has ended.
  // Errors: connection_failed (cut off), tls_failed, and core's cancelled
  // when the awaiting coroutine is cancelled (use core::with_deadline for an
  // idle limit). The transfer pauses while unread data piles up, so a slow
  // reader holds the sender back instead of filling memory.
  virtual boost::asio::awaitable<result<std::string>> read() = 0;
  // Aborts the transfer (thread-safe): a pending or later read fails with
  // cancelled once what was already buffered has been read.
  virtual void cancel() = 0;
};

class http_client {
 public:
  virtual ~http_client() = default;
  // Sends the request and reads the whole answer. A response with any status
  // is a success; errors are bad_url, connection_failed, tls_failed, timeout,
  // response_too_large, busy, and core's cancelled when the awaiting
  // coroutine is cancelled (the transfer is aborted at once and its
  // connection closed). Messages name the URL without its query and never
  // contain header values.
  virtual boost::asio::awaitable<result<response>> fetch(request r) = 0;
  // Sends the request and completes once the response's head has arrived.
  virtual boost::asio::awaitable<result<std::unique_ptr<response_stream>>> open(request r) = 0;
};

struct client_options {
  // Transfers running at once through this client (0: no limit); more wait in
  // a FIFO queue whose waiting counts against their timeout.
  std::size_t max_concurrent = 0;
  // Requests allowed to wait for a slot; past this, busy at once.
  std::size_t max_queued = 256;
  std::chrono::milliseconds connect_timeout{10000};
  // nullopt: proxies from the environment; "": none; else this proxy URL.
  std::optional<std::string> proxy;
  // The User-Agent header ("mcp-harness/<version>" when empty).
  std::string user_agent;
};

struct curl_loop_options {
  // PEM file of CA certificates trusted in addition to the system store
  // (TLS_EXTRA_CA_FILE); empty: the system store alone.
  std::string extra_ca_file;
  // Unread bytes a stream may hold before its transfer pauses.
  std::size_t stream_buffer_bytes = 256 * 1024;
};

// The thread, the curl multi handle, its connection cache and the TLS set-up
// that every client made from it shares.
class curl_loop;

// Starts the curl loop's thread. Throws std::runtime_error when libcurl cannot
// start or the extra CA file cannot be read (start-up only). The curl loop stops
// when the last client and handle to it are gone: transfers still running
// then complete with cancelled.
std::shared_ptr<curl_loop> start_curl_loop(const curl_loop_options& options = {});

// Ends every transfer of the curl loop (their waiters get cancelled) and stops
// its thread; later requests fail with cancelled. Call it at shutdown, from
// any thread but the curl loop's: a coroutine still waiting on a transfer holds
// its client, and so the curl loop, which would otherwise outlive the process's
// end (and race OpenSSL's exit handlers on its thread).
void stop_curl_loop(curl_loop& loop);

// A client with its own concurrency limit on a shared curl loop.
std::shared_ptr<http_client> create_http_client(std::shared_ptr<curl_loop> loop, const client_options& options = {});

}  // namespace harness::net
