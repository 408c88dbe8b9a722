// The error codes of the bridge component (the host's side of the sandbox runtime protocol). Each code is one row of
// the table below: X(enumerator, the wire name clients read, the HTTP status); adding the row is all a new code takes,
// and a wire name never changes (clients depend on it).
#pragma once

#include "harness/core/errc_table.hpp"

#define HARNESS_BRIDGE_ERRORS(X)                     \
  X(channel_closed, "channel_closed", 503)           \
  X(frame_too_large, "frame_too_large", 503)         \
  X(protocol_error, "protocol_error", 503)           \
  X(bad_call, "bad_call", 503)                       \
  X(stale_call, "stale_call", 503)                   \
  X(block_deadline, "block_deadline", 503)           \
  X(call_socket_failed, "call_socket_failed", 503)   \
  X(call_socket_timeout, "call_socket_timeout", 503) \
  X(sandbox_failed, "sandbox_failed", 503)           \
  X(sandbox_put_failed, "sandbox_put_failed", 503)   \
  X(sandbox_timeout, "sandbox_timeout", 503)

namespace harness::bridge {

enum class errc { HARNESS_ERRC_ENUMERATORS(HARNESS_BRIDGE_ERRORS) };

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::bridge

template <>
struct boost::system::is_error_code_enum<harness::bridge::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::bridge::errc> = HARNESS_ERRC_COUNT(HARNESS_BRIDGE_ERRORS);

namespace harness::bridge {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::bridge
