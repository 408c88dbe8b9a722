// The warm pool: sandbox containers created, attached and started ahead of
// time, with the runtime booted and waiting (`ready` received), so running a
// snippet costs milliseconds instead of a cold container start. A claimed
// sandbox is never returned: it serves one task and is destroyed after it. The
// pool refills in the background, several starts at once, the moment one is
// claimed; an empty pool falls back to a cold start. How many it keeps ready
// follows recent demand, between a minimum and a maximum, and how many it
// starts at once follows how fast the engine answers (src/execution/pool_sizer.hpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "harness/bridge/call_socket.hpp"
#include "harness/bridge/frame_channel.hpp"
#include "harness/core/health.hpp"
#include "harness/core/metrics.hpp"
#include "harness/execution/sandbox_files.hpp"
#include "harness/sandbox/sandbox.hpp"

namespace harness::telemetry {
class tracer;
}

namespace harness::execution {

struct pool_config {
  std::size_t size = 2;             // containers kept ready at least (SANDBOX_POOL_SIZE; 0: no pool)
  std::size_t max_size = 8;         // at most, under demand (SANDBOX_POOL_MAX)
  std::size_t parallel_starts = 2;  // starts at once, at most (SANDBOX_POOL_PARALLEL_STARTS)
  // With size 0: keep none until claims come, then follow them up to
  // max_size (a language not every deployment uses: SANDBOX_PYTHON_POOL_MAX).
  bool on_demand = false;
  sandbox::language language = sandbox::language::javascript;  // the runtime its sandboxes run
  std::chrono::milliseconds ready_timeout{20'000};             // container start to `ready`
  // Absolute folder for the sandboxes' call sockets (SANDBOX_CALL_SOCKET_DIR);
  // empty: the protocol stays on the container's stdio.
  std::string call_socket_dir;
  // Files every sandbox gets before it is claimed (files->shared_files(),
  // read on `blocking`), so that no request waits for them. Null: none.
  std::shared_ptr<sandbox_files> files;
  boost::asio::any_io_executor blocking;
  // Each sandbox start is a span of its own (a trace root); null: not traced.
  std::shared_ptr<telemetry::tracer> tracer{};
};

// A started sandbox whose runtime said `ready`, owned by one task. Destroying
// it drops the channels, then the container (which the backend removes).
struct sandbox_lease {
  std::unique_ptr<sandbox::sandbox_container> container;
  // The pool's tracer: the sandbox's removal is a span of its own too (null: not traced).
  std::shared_ptr<telemetry::tracer> tracer;
  // What the protocol runs on: the call socket once linked, else the
  // container's attached stdio.
  std::unique_ptr<bridge::frame_channel> channel;
  // The attached stdio when the runtime is linked to its call socket: no
  // frames come on it any more, but its output must be read (and logged) so
  // that a block writing to stdout or stderr never blocks on a full pipe.
  std::unique_ptr<bridge::frame_channel> stdio;
  bool warm = false;  // came from the pool (false: cold start)
};

struct pool_stats {
  std::size_t target = 0;  // what the pool aims to hold now, between min and max
  std::size_t min = 0, max = 0;
  std::size_t ready = 0;
  std::size_t starting = 0;
  std::size_t parallel = 0;                 // starts it allows at once now
  double claims_per_second = 0;             // over the last 30 s
  std::chrono::milliseconds start_time{0};  // a start's mean time, create to ready
  // How long the last claims (up to 200) waited for their sandbox: ~0 from
  // the pool, a whole start when cold.
  std::chrono::microseconds claim_wait_p50{0}, claim_wait_p99{0};
  std::uint64_t warm_claims = 0;
  std::uint64_t cold_claims = 0;
  std::uint64_t failed_starts = 0;
  // Runtimes that ended before they said `ready` (Node under gVisor now and
  // then): a cold claim starts another, so callers never see one.
  std::uint64_t died_before_ready = 0;
  // Sandboxes started with a call socket, by how it ended: the runtime linked
  // to it, or it stayed on stdio (slower; the log says why).
  std::uint64_t linked = 0;
  std::uint64_t link_failures = 0;
};

class warm_pool {
 public:
  virtual ~warm_pool() = default;

  // Starts filling in the background.
  virtual void start() = 0;

  // A ready sandbox: from the pool when one is waiting, else a cold start.
  // Errors: the backend's (docker_*, sandbox_shutting_down), sandbox_timeout.
  virtual boost::asio::awaitable<result<sandbox_lease>> claim() = 0;

  // Stops refilling and removes the containers waiting in the pool.
  virtual boost::asio::awaitable<void> shutdown() = 0;

  virtual pool_stats stats() const = 0;
};

// Its deadlines, backoff and demand estimate are on `clock`, which must outlive it.
std::shared_ptr<warm_pool> create_warm_pool(const boost::asio::any_io_executor& executor, core::clock& clock,
                                            std::shared_ptr<sandbox::sandbox_backend> backend, pool_config config);

// GET /health's "pool" entry: target, ready, starting; not required (an empty
// pool still serves, only slower).
// `name`: the component's name ("pool"; "pool.python" for the Python sandboxes').
std::shared_ptr<core::health_source> pool_health(std::shared_ptr<warm_pool> pool, std::string name = "pool");

// harness_sandbox_claims_total{kind="warm|cold"}, harness_sandbox_pool_ready,
// harness_sandbox_pool_target, harness_sandbox_start_failures_total and
// harness_sandbox_links_total{result="linked|stdio"}, read
// from stats() at each scrape: scrape on the pool's executor (GET /metrics
// runs on the I/O thread). The registry holds the pool weakly.
// With pools of several languages, each sample is the sum over them (the
// claim wait quantiles: the highest of them).
void register_pool_metrics(core::metrics_registry& registry, const std::vector<std::shared_ptr<warm_pool>>& pools);

}  // namespace harness::execution
