// The HTTP layer under the LLM providers. The real one (create_curl_transport)
// runs every transfer on one libcurl multi handle driven by a dedicated
// transfer thread, so no curl code ever runs on (or blocks) the I/O thread; a
// fake or fault-injecting transport implements the same interface in tests.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "harness/core/error.hpp"

namespace harness::llm {

struct http_request {
  std::string url;  // absolute http(s) URL
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // sent with POST
  // The whole call: waiting for a free slot, connecting, sending, receiving.
  std::chrono::milliseconds timeout{120000};
};

struct http_response {
  long status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased; last value wins
  std::string body;
};

class http_transport {
 public:
  virtual ~http_transport() = default;
  // POSTs the request and completes on the awaiting coroutine's executor.
  // A response with any status is a success; errors are transport failures:
  //   "llm_connection_failed" (refused, reset, dropped mid-answer, DNS),
  //   "llm_timeout", "llm_response_too_large", "llm_busy" (queue full),
  //   "cancelled" (the awaiting coroutine was cancelled: the transfer is
  //   aborted at once and its connection closed). Messages never contain
  //   header values (they carry the API key).
  virtual boost::asio::awaitable<result<http_response>> send(http_request request) = 0;
};

struct curl_transport_options {
  // Transfers that run at once on the transfer thread; more wait in a FIFO queue.
  std::size_t max_concurrent = 8;
  // Requests allowed to wait for a slot; past this, send() fails with "llm_busy" at once.
  std::size_t max_queued = 256;
  // Larger answers abort with "llm_response_too_large".
  std::size_t max_response_bytes = 16 * 1024 * 1024;
  std::chrono::milliseconds connect_timeout{10000};
  // Empty: no proxy at all (environment proxies are ignored, so curl talks only
  // to the configured base URL). Otherwise a proxy URL for every transfer.
  std::string proxy;
};

// Starts the transfer thread; the transport's destructor aborts what is still
// running (those sends complete with "cancelled") and joins the thread.
// Throws std::runtime_error if libcurl cannot be initialised (start-up only).
std::shared_ptr<http_transport> create_curl_transport(const curl_transport_options& options);

}  // namespace harness::llm
