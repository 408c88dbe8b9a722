// The HTTP layer under the LLM providers. The real one (create_net_transport)
// sends through the one outbound HTTP client (net), so no curl code ever runs
// on (or blocks) the I/O thread; a fake or fault-injecting transport
// implements the same interface in tests.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "harness/core/error.hpp"
#include "harness/net/http_client.hpp"

namespace harness::llm {

class http_transport {
 public:
  virtual ~http_transport() = default;
  // POSTs the request (its url, headers, body and timeout: the whole call,
  // waiting for a free slot included; the method is always POST and the size
  // limit the transport's) and completes on the awaiting coroutine's executor.
  // A response with any status is a success; errors are transport failures:
  //   "llm_connection_failed" (refused, reset, dropped mid-answer, DNS),
  //   "llm_timeout", "llm_response_too_large", "llm_busy" (queue full),
  //   "cancelled" (the awaiting coroutine was cancelled: the transfer is
  //   aborted at once and its connection closed). Messages never contain
  //   header values (they carry the API key).
  virtual boost::asio::awaitable<result<net::response>> send(net::request request) = 0;
};

// LLM calls through the one outbound HTTP client, with its own limit of
// calls in flight (LLM_MAX_CONCURRENT) and waiting line. Net's errors become
// the LLM's: llm_connection_failed (TLS included, with net's message),
// llm_timeout, llm_response_too_large, llm_busy.
struct net_transport_options {
  std::size_t max_concurrent = 8;
  std::size_t max_queued = 256;
  std::size_t max_response_bytes = 16 * 1024 * 1024;
  // LLM_PROXY: empty for the environment's proxies, "none" for none, else a proxy URL.
  std::string proxy;
};

std::shared_ptr<http_transport> create_net_transport(std::shared_ptr<net::curl_loop> loop,
                                                     const net_transport_options& options);

}  // namespace harness::llm
