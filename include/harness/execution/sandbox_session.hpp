// One claimed sandbox with its protocol session: what an /execute session or
// an agent task runs its code blocks in. Opening claims a container from the
// warm pool (retrying once when a pooled one turns out dead) and sends `init`;
// closing removes the container. The owner decides what happens after a
// broken() session: both owners open a fresh one for the next block.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "harness/bridge/runtime_session.hpp"
#include "harness/bridge/tool_gateway.hpp"
#include "harness/core/metrics.hpp"
#include "harness/execution/sandbox_files.hpp"
#include "harness/execution/warm_pool.hpp"

namespace harness::execution {

struct sandbox_session_options {
  std::string id;  // sent in `init`; names the session in logs
  // Whose sandbox this is: with `files`, the user's skills (and the
  // workspace's files, unless `workspace_id` is empty) go in with `init`,
  // and what each block changes there is validated and written back.
  std::string user_id;
  std::string workspace_id;
  std::shared_ptr<sandbox_files> files;
  boost::asio::any_io_executor blocking;  // where the file work runs (null: inline)
  bridge::session_limits limits;
  // Counts each block (harness_sandbox_execs_total{outcome}, harness_sandbox_exec_duration_seconds); may be null.
  std::shared_ptr<core::metrics_registry> metrics;
};

// Creates the families sandbox_session counts into, with a zero series per
// outcome, so a fresh server's /metrics already lists them.
void register_exec_metrics(core::metrics_registry& metrics);

class sandbox_session {
 public:
  // Claims a sandbox and initialises it. `tools` must outlive the session;
  // `filter` is shared with the owner (an agent task also censors with it).
  // Errors: the pool's, or sandbox_failed when two sandboxes failed at init.
  // The blocks' deadlines are on `clock`, which must outlive the session.
  static boost::asio::awaitable<result<std::unique_ptr<sandbox_session>>> open(
      const boost::asio::any_io_executor& executor, core::clock& clock, warm_pool& pool, bridge::tool_gateway& tools,
      std::shared_ptr<bridge::data_filter> filter, sandbox_session_options options);

  ~sandbox_session();
  sandbox_session(const sandbox_session&) = delete;
  sandbox_session& operator=(const sandbox_session&) = delete;

  // Runs one block (see runtime_session::exec), then writes back the files it
  // changed; the write-back's report is in files_report. Not concurrently with itself.
  boost::asio::awaitable<bridge::exec_result> exec(std::string code, std::chrono::milliseconds timeout,
                                                   telemetry::span_parent trace = {});

  // Writes the host's own files into the sandbox (see runtime_session::put)
  // and, with `files`, into the user's folders on the host as well.
  boost::asio::awaitable<status> put(std::vector<bridge::init_file> files, std::chrono::milliseconds timeout);

  // Kills the container without waiting, so a block in flight ends at once
  // (with a SandboxError); the session is broken afterwards. For cancellation.
  void kill();

  // Drops the protocol session and removes the container. Call it once the
  // last exec has returned; the destructor removes the container otherwise.
  boost::asio::awaitable<void> close();

  bool broken() const;
  bool warm() const { return warm_; }
  // What the protocol runs on: "socket" (the call socket) or "stdio".
  const char* channel_kind() const { return drain_ ? "socket" : "stdio"; }
  const std::string& id() const { return id_; }

 private:
  sandbox_session(const boost::asio::any_io_executor& executor, std::string id, sandbox_lease lease,
                  std::shared_ptr<bridge::data_filter> filter);

  boost::asio::any_io_executor executor_;
  std::string id_;
  bool warm_ = false;
  // Shared so that kill()'s background stop keeps it alive. Declared before
  // the channel and the runtime, so those go first (the runtime reads the
  // channel, the channel reads the container's stream).
  std::shared_ptr<sandbox::sandbox_container> container_;
  std::shared_ptr<telemetry::tracer> tracer_;  // the pool's: removing the container is a span
  std::unique_ptr<bridge::frame_channel> channel_;
  boost::asio::awaitable<nlohmann::json> write_back(const std::vector<bridge::file_change>& changes);
  static boost::asio::awaitable<status> remove_container(const std::shared_ptr<telemetry::tracer>& tracer,
                                                         sandbox::sandbox_container& container);
  struct stdio_drain;  // the attached stdio of a linked runtime, read and logged
  static boost::asio::awaitable<void> drain_stdio(std::shared_ptr<stdio_drain> drain);
  std::shared_ptr<stdio_drain> drain_;
  std::shared_ptr<bridge::data_filter> filter_;
  std::shared_ptr<bridge::tool_gateway> tools_;  // the gateway acting for the user, when it differs per user
  std::unique_ptr<bridge::runtime_session> runtime_;
  std::shared_ptr<core::metrics_registry> metrics_;
  sandbox_session_options options_;  // whose files, and where the file work runs
  bool killed_ = false;
};

}  // namespace harness::execution
