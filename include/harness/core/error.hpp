// Errors as values. Expected failures (bad input, an engine that says no, a
// timeout) travel as harness::error inside a harness::result<T>; exceptions are
// for start-up failures and the last-resort catch at a request boundary.
#pragma once

#include <string>
#include <utility>

#include <boost/system/result.hpp>

#include "harness/core/error_code.hpp"
#include "harness/core/errors.hpp"

namespace harness {

struct error {
  // A constructor (rather than an aggregate) keeps result<std::string> unambiguous:
  // a lone string must never convert into an error.
  error() = default;
  error(error_code code_, std::string message_, std::string hint_ = {})
      : code(code_), message(std::move(message_)), hint(std::move(hint_)) {}

  // One of a component's errc values (core::errc::invalid_setting,
  // mcp::errc::timeout); code.wire_name() is the stable snake_case string
  // clients read, code.http_status() the status a request answers with.
  error_code code = core::errc::internal_error;
  // What went wrong, for a person; never contains secrets.
  std::string message;
  // What to do about it, when there is something useful to say; may be empty.
  std::string hint;

  // "message (hint)" or just "message".
  std::string describe() const { return hint.empty() ? message : message + " (" + hint + ")"; }
};

inline error make_error(error_code code, std::string message, std::string hint = {}) {
  return error(code, std::move(message), std::move(hint));
}

// Thrown by result<T>::value() on an error; carries the error unchanged.
class error_exception : public std::exception {
 public:
  explicit error_exception(error e) : error_(std::move(e)), what_(error_.describe()) {}
  const char* what() const noexcept override { return what_.c_str(); }
  const harness::error& get() const noexcept { return error_; }

 private:
  harness::error error_;
  std::string what_;
};

// Found by ADL so that boost::system::result<T, error>::value() throws error_exception.
[[noreturn]] inline void throw_exception_from_error(const error& e, const boost::source_location&) {
  throw error_exception(e);
}

template <class T>
using result = boost::system::result<T, error>;

// result<void> spelled out, for functions that only succeed or fail.
using status = boost::system::result<void, error>;

}  // namespace harness
