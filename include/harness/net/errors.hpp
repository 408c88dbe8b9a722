// The error codes of the net component (the one outbound HTTP client). Each
// value has its wire name and HTTP status in src/net/errors.cpp; add a code
// there and here. Callers usually map these onto their own codes (the LLM's
// llm_timeout, the MCP transport's mcp_connection_lost) and keep the message.
#pragma once

#include "harness/core/error_code.hpp"

namespace harness::net {

enum class errc {
  bad_url = 1,         // not an absolute http(s) URL, or credentials in it
  connection_failed,   // DNS, refused, reset, cut off mid-answer
  tls_failed,          // the certificate chain or host name did not verify, or the handshake failed
  timeout,             // no complete answer (or head, for a stream) within the request's timeout
  response_too_large,  // the body passed request::max_response_bytes
  busy,                // the client's queue is full
  address_refused,     // a public_only request's host is on loopback, a private or a link-local network
};

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::net

template <>
struct boost::system::is_error_code_enum<harness::net::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::net::errc> = 7;

namespace harness::net {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::net
