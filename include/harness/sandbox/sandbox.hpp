// The sandbox backend: starts locked-down containers that run the REPL
// runtime, and removes them (on stop, on a dropped handle, at shutdown and by
// sweeps of leftovers). What runs inside and how blocks are driven is the
// execution layer's job (warm_pool, sandbox_session) over the container's
// attach stream and call socket.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "harness/core/error.hpp"
#include "harness/docker/engine_client.hpp"
#include "harness/sandbox/language.hpp"
#include "harness/sandbox/sandbox_config.hpp"

namespace harness::sandbox {

template <class T>
using task = boost::asio::awaitable<T>;

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
  // REPL runtime of `lang` (sandbox/runtime/runtime.js, sandbox/runtime-python/runtime.py) that speaks the NDJSON
  // protocol, with the host path `call_socket` (when not empty) mounted as its call socket (bridge/call_socket.hpp).
  // Errors: docker_* from the engine (docker_image_not_found with the build command as hint), sandbox_shutting_down
  // after shutdown().
  virtual task<result<std::unique_ptr<sandbox_container>>> start(std::string task_id, std::string call_socket,
                                                                 language lang) = 0;
  // A JavaScript sandbox.
  task<result<std::unique_ptr<sandbox_container>>> start(std::string task_id, std::string call_socket = {}) {
    return start(std::move(task_id), std::move(call_socket), language::javascript);
  }

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
