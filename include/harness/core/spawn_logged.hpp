// Starts a coroutine that nobody waits for. Unlike co_spawn(..., detached),
// what goes wrong in it is never lost: an exception is logged as an error,
// an error value it returns as a warning, both under the name given. Use it
// for every fire-and-forget coroutine; never asio::detached directly.
#pragma once

#include <exception>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>

#include "harness/core/error.hpp"

namespace harness::core {

// Logs "<what> failed: <exception text>" at error level.
void log_spawn_exception(std::string_view what, std::exception_ptr failure);
// Logs "<what> failed: <error described>" at warn level.
void log_spawn_error(std::string_view what, const error& problem);

namespace detail {

template <class T>
struct is_harness_result : std::false_type {};
template <class T>
struct is_harness_result<boost::system::result<T, error>> : std::true_type {};

// The completion handler of a logged spawn whose coroutine yields T.
template <class T>
auto logged_completion(std::string what) {
  if constexpr (std::is_void_v<T>) {
    return [what = std::move(what)](std::exception_ptr failure) {
      if (failure) log_spawn_exception(what, failure);
    };
  } else {
    return [what = std::move(what)](std::exception_ptr failure, T value) {
      if (failure) {
        log_spawn_exception(what, failure);
      } else if constexpr (is_harness_result<T>::value) {
        if (!value) log_spawn_error(what, value.error());
      }
    };
  }
}

}  // namespace detail

// Runs `op` on `executor` and returns at once. `what` names the work in the
// log ("mcp github: refresh tools"). An exception escaping `op` is logged; a
// harness::result / status that `op` returns holding an error is logged; any
// other value is dropped. Keep whatever `op` uses alive in `op` itself (a
// shared_ptr it holds): nothing else does.
template <class T>
void spawn_logged(const boost::asio::any_io_executor& executor, boost::asio::awaitable<T> op, std::string what) {
  boost::asio::co_spawn(executor, std::move(op), detail::logged_completion<T>(std::move(what)));
}

// A coroutine function: called (with no arguments) inside the spawn, so it is
// kept alive for as long as its coroutine runs, captures included.
template <class F>
requires std::is_invocable_v<F>
void spawn_logged(const boost::asio::any_io_executor& executor, F op, std::string what) {
  using T = typename std::invoke_result_t<F>::value_type;
  boost::asio::co_spawn(executor, std::move(op), detail::logged_completion<T>(std::move(what)));
}

}  // namespace harness::core
