// A child process spawned with posix_spawn (no shell, no fork of our big
// address space), its stdin/stdout/stderr as pipes, in its own process group so
// a signal reaches its children too, and a pidfd to await its exit on Asio.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#include "harness/core/clock.hpp"
#include "harness/core/error.hpp"

namespace harness::mcp::detail {

struct spawn_request {
  std::string command;  // looked up in PATH when it has no '/'
  std::vector<std::string> args;
  std::map<std::string, std::string> env;  // the complete environment of the child
  std::string cwd;                         // empty: ours
};

class child_process {
 public:
  // Spawns the child; the error names the command and errno text.
  static result<std::unique_ptr<child_process>> spawn(boost::asio::any_io_executor executor,
                                                      const spawn_request& request);
  ~child_process();  // SIGKILLs and reaps a child still running (last resort)

  boost::asio::posix::stream_descriptor& stdin_pipe() { return stdin_; }
  boost::asio::posix::stream_descriptor& stdout_pipe() { return stdout_; }
  boost::asio::posix::stream_descriptor& stderr_pipe() { return stderr_; }
  int pid() const { return pid_; }

  // Waits up to `limit` (on `clock`) for the child to exit; true once it has exited (and is reaped).
  boost::asio::awaitable<bool> wait_exit(core::clock& clock, std::chrono::milliseconds limit);
  // Sends a signal to the child's process group; no-op once reaped.
  void signal(int sig);
  // SIGKILLs what is left of the child's process group after the child itself exited
  // (helpers it started). Call it only right after the exit, with evidence that the
  // group lives on: a group's id is not reused while it has members.
  void kill_group();
  // The wait status text once exited ("exit status 1", "signal 9"), else empty.
  std::string exit_description() const { return exit_text_; }
  bool exited() const { return reaped_; }

 private:
  child_process(boost::asio::any_io_executor executor, int pid, int in, int out, int err, int pidfd);
  bool try_reap();

  int pid_;
  boost::asio::posix::stream_descriptor stdin_, stdout_, stderr_;
  std::optional<boost::asio::posix::stream_descriptor> pidfd_;
  bool reaped_ = false;
  std::string exit_text_;
};

// The environment a stdio server inherits from us before its configured env is added:
// only what a program needs to run, never our secrets (API keys, CA bundles, tokens).
std::map<std::string, std::string> minimal_environment();

}  // namespace harness::mcp::detail
