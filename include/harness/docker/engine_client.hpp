// Docker Engine API client: HTTP/1.1 over the engine's unix socket, or over
// tcp (optionally TLS with client certificates). Every call is an Asio C++20
// coroutine returning a result; engine errors come back as harness::error with
// the engine's own message and, where one helps, a hint. Codes:
//   docker_unreachable      cannot connect (engine down, wrong DOCKER_HOST, TLS failure)
//   docker_timeout          the call did not finish within its deadline
//   docker_not_found        no such container
//   docker_image_not_found  no such image (create, image inspect)
//   docker_conflict         the engine refused because of state (409)
//   docker_bad_request      the engine rejected the parameters (400)
//   docker_engine_error     any other engine failure (500...)
//   docker_protocol_error   the engine's answer could not be understood
//   docker_api_version      the engine does not speak an API version we support
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"
#include "harness/docker/engine_endpoint.hpp"
#include "harness/docker/engine_types.hpp"
#include "harness/docker/frame_demuxer.hpp"

namespace harness::docker {

template <class T>
using task = boost::asio::awaitable<T>;

// A hijacked attach connection: the container's stdin going in, its stdout and
// stderr coming out as demultiplexed chunks. Built for a long-lived session
// (write a frame, read replies, repeat). One reader and one writer may run at
// the same time; two concurrent reads (or writes) are not allowed. Destroying
// it closes the connection.
class attach_stream {
 public:
  virtual ~attach_stream() = default;

  // Writes all of data to the container's stdin within timeout. data must stay
  // valid until the returned awaitable completes.
  virtual task<status> write_stdin(std::string_view data, std::chrono::milliseconds timeout) = 0;

  // Half-closes the connection (over TLS: sends close_notify): the container
  // sees end of file on stdin, and its output can still be read.
  virtual status close_stdin() = 0;

  // The next chunk of output (at most the demuxer's chunk size). nullopt means
  // the stream ended (the container exited or was killed). docker_timeout when
  // nothing arrived within timeout; that also closes the stream, so a long-lived
  // session passes a timeout as long as it is willing to wait.
  virtual task<result<std::optional<output_chunk>>> read(std::chrono::milliseconds timeout) = 0;

  // Closes the connection now; a pending read or write ends with an error.
  virtual void close() = 0;
};

class engine_client {
 public:
  virtual ~engine_client() = default;

  // GET /_ping.
  virtual task<status> ping() = 0;

  // GET /version. The first successful call fixes the API version used for all
  // later calls: the highest both sides speak (this client speaks 1.41 to 1.47);
  // docker_api_version when there is none. Other calls negotiate on first use.
  virtual task<result<version_info>> version() = 0;

  // GET /info, reduced to the runtimes the engine knows and its default.
  virtual task<result<engine_info>> info() = 0;

  virtual task<result<image_info>> inspect_image(std::string name) = 0;

  // POST /containers/create with body as the Engine API's ContainerConfig JSON
  // (HostConfig inside). name may be empty. Returns the container id.
  virtual task<result<std::string>> create_container(nlohmann::json body, std::string name) = 0;

  virtual task<status> start_container(std::string id) = 0;

  // Attaches stdin, stdout and stderr (stream=1, no logs) of a container created
  // with OpenStdin and Tty false. Attach before start so no output is lost.
  virtual task<result<std::unique_ptr<attach_stream>>> attach_container(std::string id) = 0;

  // Waits until the container is not running (condition "not-running").
  virtual task<result<wait_result>> wait_container(std::string id, std::chrono::milliseconds timeout) = 0;

  // Sends signal ("SIGKILL", "SIGTERM"...). A container that is not running is docker_conflict.
  virtual task<status> kill_container(std::string id, std::string signal) = 0;

  // Removes the container (force: kill it first if it runs; its anonymous volumes too).
  // A container that is already gone is docker_not_found.
  virtual task<status> remove_container(std::string id, bool force) = 0;

  // Containers (running or not when all) that carry the label "key" or "key=value".
  virtual task<result<std::vector<container_summary>>> list_containers(std::string label_filter, bool all) = 0;

  virtual task<result<container_state>> inspect_container(std::string id) = 0;

  // One stats sample (one-shot, no streaming) reduced to the pids counters; only
  // meaningful while the container runs.
  virtual task<result<pids_usage>> container_pids(std::string id) = 0;

  // The endpoint this client talks to (for logs and health).
  virtual const engine_endpoint& endpoint() const = 0;
};

// The client takes no connection at construction: each call opens its own
// (cheap on a unix socket) so calls can run concurrently. executor is where the
// I/O runs (the app's I/O thread).
std::shared_ptr<engine_client> create_engine_client(boost::asio::any_io_executor executor, docker_config config);

}  // namespace harness::docker
