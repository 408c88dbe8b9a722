// The call socket: a unix socket, one per sandbox, bind-mounted into the
// container, that the runtime protocol moves onto once the runtime has booted.
// A round trip over the engine's attach stream costs about half a millisecond
// when busy and several when idle (stdout -> engine -> our connection and
// back); over the socket it costs tens of microseconds. That is most of the
// price of a tool call from sandbox code and of a warm /execute.
//
// It is the one channel into a sandbox that is not the container's own stdio,
// so it is authenticated: the host creates it with a fresh random token, sends
// the token in a `link` frame over stdio, and binds the first connection whose
// `hello` frame carries that token (compared in constant time). Anything else
// that connects is dropped, and the file is removed once the runtime is bound.
// docs/SECURITY.md says what that protects.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "harness/bridge/frame_channel.hpp"
#include "harness/core/clock.hpp"
#include "harness/core/error.hpp"

namespace harness::bridge {

class call_socket {
 public:
  // Listens on a new socket under `dir` (created 0711 if missing) with a
  // random name; the file is 0666 so the sandbox's user can connect, and the
  // token is what keeps other local users out. `runtime_path` is where the
  // runtime will find it (its mount point in the container; empty: path(),
  // for a runtime on this host). Errors: call_socket_failed.
  // accept()'s timeout is measured on `clock`, which must outlive the socket.
  static result<std::unique_ptr<call_socket>> listen(const boost::asio::any_io_executor& executor, core::clock& clock,
                                                     const std::string& dir, std::string runtime_path);

  virtual ~call_socket() = default;  // closes the listener and removes the file

  // The host path (to bind-mount), and the runtime's path to the same socket.
  virtual const std::string& path() const = 0;
  virtual const std::string& runtime_path() const = 0;
  // 32 hex characters from the kernel's random source; goes into `init`.
  virtual const std::string& token() const = 0;

  // The first connection that says {"type":"hello","token":<token>} within
  // `timeout`, as a frame channel (lines capped at max_line); connections
  // with anything else are closed. Closes the listener either way. Errors:
  // call_socket_timeout, call_socket_failed.
  virtual boost::asio::awaitable<result<std::unique_ptr<frame_channel>>> accept(std::chrono::milliseconds timeout,
                                                                                std::size_t max_line) = 0;

  // The longest folder listen() accepts: a socket path has at most 107 bytes,
  // and the name adds "/<16 hex>.sock".
  static constexpr std::size_t max_dir_length = 107 - 22;
};

// Moves a runtime that said `ready` on `stdio` onto `socket`: sends `link`
// {socket: runtime_path(), token} on stdio and waits for the runtime's hello.
// From then on the runtime sends and reads every frame on the returned
// channel, and nothing on stdio. Errors: the stdio write's, or accept()'s.
boost::asio::awaitable<result<std::unique_ptr<frame_channel>>> link_runtime(frame_channel& stdio, call_socket& socket,
                                                                            std::chrono::milliseconds timeout);

// Constant-time comparison, for tokens.
bool same_token(std::string_view a, std::string_view b);

}  // namespace harness::bridge
