// Test helper: runs a program as a child process with a chosen environment,
// captures its stdout+stderr, and lets the test signal and reap it.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace harness::testing {

class child_process {
 public:
  // Starts `argv[0]` (a path) with `argv` and the current environment plus
  // `extra_env` (which overrides). Output goes to a pipe the test reads.
  child_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& extra_env = {});
  ~child_process();  // kills (SIGKILL) and reaps the child if still running
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  // Reads output until `needle` appears or the timeout passes; returns the
  // line containing it.
  std::optional<std::string> wait_for_output(const std::string& needle, std::chrono::milliseconds timeout);

  void send_signal(int signal);

  // Waits for exit; the exit code, or nullopt on timeout. A death by signal is 128 + signal.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);

  // Everything read so far (after draining what is available now).
  const std::string& output();

  int pid() const { return pid_; }

 private:
  void read_available(std::chrono::milliseconds wait);

  int pid_ = -1;
  int out_fd_ = -1;
  std::string output_;
  std::optional<int> exit_code_;
};

// Path of a built binary: $HARNESS_BINARY_DIR/<relative>.
std::string binary_path(const std::string& relative);
// Path of a source file: $HARNESS_SOURCE_DIR/<relative>.
std::string source_path(const std::string& relative);
// `name` on $PATH (an executable file), or empty.
std::string find_on_path(const std::string& name);

}  // namespace harness::testing
