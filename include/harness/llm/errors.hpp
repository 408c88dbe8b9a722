// The error codes of the llm component (LLM providers, their transport and record/replay). Each value has
// its wire name and HTTP status in src/llm/errors.cpp; add a code there and here.
#pragma once

#include "harness/core/error_code.hpp"

namespace harness::llm {

enum class errc {
  invalid_json = 1,
  bad_request,
  unauthorized,
  forbidden,
  not_found,
  request_too_large,
  rate_limited,
  server_error,
  overloaded,
  busy,
  internal,
  error,
  timeout,
  deadline_exceeded,
  connection_failed,
  transport,
  response_too_large,
  bad_response,
  replay_exhausted,
  replay_invalid,
};

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::llm

template <>
struct boost::system::is_error_code_enum<harness::llm::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::llm::errc> = 20;

namespace harness::llm {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::llm
