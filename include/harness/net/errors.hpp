// The error codes of the net component (the one outbound HTTP client). Each code is one row of the table below:
// X(enumerator, the wire name clients read, the HTTP status); adding the row is all a new code takes, and a wire name
// never changes (clients depend on it). Callers usually map these onto their own codes (the LLM's llm_timeout, the MCP
// transport's mcp_connection_lost) and keep the message.
#pragma once

#include "harness/core/errc_table.hpp"

#define HARNESS_NET_ERRORS(X)                                                          \
  /* not an absolute http(s) URL, or credentials in it */                              \
  X(bad_url, "bad_url", 500)                                                           \
  /* DNS, refused, reset, cut off mid-answer */                                        \
  X(connection_failed, "connection_failed", 502)                                       \
  /* the certificate chain or host name did not verify, or the handshake failed */     \
  X(tls_failed, "tls_failed", 502)                                                     \
  /* no complete answer (or head, for a stream) within the request's timeout */        \
  X(timeout, "http_timeout", 504)                                                      \
  /* the body passed request::max_response_bytes */                                    \
  X(response_too_large, "response_too_large", 502)                                     \
  /* the client's queue is full */                                                     \
  X(busy, "http_client_busy", 502)                                                     \
  /* a public_only request's host is on loopback, a private or a link-local network */ \
  X(address_refused, "address_refused", 502)

namespace harness::net {

enum class errc { HARNESS_ERRC_ENUMERATORS(HARNESS_NET_ERRORS) };

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::net

template <>
struct boost::system::is_error_code_enum<harness::net::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::net::errc> = HARNESS_ERRC_COUNT(HARNESS_NET_ERRORS);

namespace harness::net {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::net
