// The sandbox: runs JavaScript from the LLM in a locked-down container, one
// container per task, removed afterwards. Part 1 is the cold path (a fresh
// container per block); the warm pool, REPL and tool bridge build on
// sandbox_backend::start() and the container's attach stream.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "harness/core/error.hpp"
#include "harness/docker/engine_client.hpp"
#include "harness/sandbox/sandbox_config.hpp"

namespace harness::sandbox {

template <class T>
using task = boost::asio::awaitable<T>;

// How a block ended. Anything but ok carries run_result::failure.
enum class run_outcome {
  ok,             // exit 0
  code_error,     // the block threw or exited non-zero: sandbox_code_error
  timeout,        // killed at SANDBOX_TIMEOUT_MS: sandbox_timeout
  out_of_memory,  // the kernel OOM-killed it: sandbox_oom
  pids_limit,     // it hit SANDBOX_PIDS_LIMIT (fork bomb): sandbox_pids_limit
  output_limit,   // it printed more than SANDBOX_OUTPUT_LIMIT_BYTES and was stopped: sandbox_output_limit
};
const char* to_string(run_outcome outcome);

struct run_timings {
  std::chrono::milliseconds create{0};  // create + attach
  std::chrono::milliseconds start{0};   // start + code written
  std::chrono::milliseconds run{0};     // until the container's output ended
  std::chrono::milliseconds total{0};   // including cleanup
};

struct run_result {
  run_outcome outcome = run_outcome::ok;
  std::optional<error> failure;          // what went wrong and what to do, for the agent
  std::string stdout_text, stderr_text;  // together at most output_limit_bytes
  bool output_truncated = false;
  std::int64_t exit_code = 0;
  std::string container_id;
  run_timings timings;
};

// A started container owned by one task. Its attach stream is the only way in
// or out. Destroying it without stop() still removes the container (in the
// background on the backend's executor).
class sandbox_container {
 public:
  virtual ~sandbox_container() = default;
  virtual const std::string& id() const = 0;
  virtual const std::string& task_id() const = 0;
  virtual docker::attach_stream& stream() = 0;
  // Kills (if running) and removes the container; safe to call twice.
  virtual task<status> stop() = 0;
};

class sandbox_backend {
 public:
  virtual ~sandbox_backend() = default;

  // Creates, attaches and starts a hardened container for task_id, running the
  // REPL runtime (sandbox/runtime/runtime.js) that speaks the NDJSON protocol,
  // with the host path `call_socket` (when not empty) mounted as its call
  // socket (bridge/call_socket.hpp). Errors: docker_* from the engine
  // (docker_image_not_found with the build command as hint),
  // sandbox_shutting_down after shutdown().
  virtual task<result<std::unique_ptr<sandbox_container>>> start(std::string task_id,
                                                                 std::string call_socket = {}) = 0;

  // The cold path: a fresh container runs code (stdin: the code, then EOF),
  // its output is collected within the caps, and the container is removed on
  // every path. Engine problems are errors; what the code did (timeout, OOM,
  // ...) is a run_result with a failure.
  virtual task<result<run_result>> run_once(std::string task_id, std::string code) = 0;

  // Removes containers with our owner label that this backend does not own and
  // whose task is_live does not claim (pass nullptr at start-up: no task lives).
  // Returns how many were removed.
  virtual task<result<std::size_t>> sweep(std::function<bool(const std::string& task_id)> is_live) = 0;

  // Refuses new work and removes every container this backend still owns.
  virtual task<void> shutdown() = 0;

  // Containers currently owned (started and not yet removed).
  virtual std::size_t live_count() const = 0;
};

std::shared_ptr<sandbox_backend> create_docker_sandbox(boost::asio::any_io_executor executor,
                                                       std::shared_ptr<docker::engine_client> engine,
                                                       sandbox_config config);

}  // namespace harness::sandbox
