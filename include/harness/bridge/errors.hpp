// The error codes of the bridge component (the host's side of the sandbox runtime protocol). Each value has
// its wire name and HTTP status in src/bridge/errors.cpp; add a code there and here.
#pragma once

#include "harness/core/error_code.hpp"

namespace harness::bridge {

enum class errc {
  channel_closed = 1,
  frame_too_large,
  protocol_error,
  bad_call,
  stale_call,
  block_deadline,
  call_socket_failed,
  call_socket_timeout,
  sandbox_failed,
  sandbox_put_failed,
  sandbox_timeout,
};

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::bridge

template <>
struct boost::system::is_error_code_enum<harness::bridge::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::bridge::errc> = 11;

namespace harness::bridge {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::bridge
