#include "harness/execution/sandbox_session.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "harness/core/logging.hpp"

namespace harness::execution {

namespace asio = boost::asio;

namespace {

// The outcome label of a finished block: the error names the runtime session
// gives to failures of the sandbox rather than of the code.
std::string_view exec_outcome(const bridge::exec_result& outcome) {
  if (outcome.ok) return "ok";
  std::string_view name =
      outcome.error.is_object() && outcome.error.contains("name") && outcome.error["name"].is_string()
          ? std::string_view(outcome.error["name"].get_ref<const std::string&>())
          : std::string_view();
  if (name == "TimeoutError") return "timeout";
  if (name == "SandboxError" || name == "ProtocolError") return "sandbox_error";
  return "error";
}

void record(core::metrics_registry& metrics, const bridge::exec_result& outcome) {
  metrics
      .counters("harness_sandbox_execs_total",
                "Code blocks run in a sandbox, by outcome (ok, error, timeout, sandbox_error).", {"outcome"})
      .with({exec_outcome(outcome)})
      .inc();
  metrics.histograms("harness_sandbox_exec_duration_seconds", "Time to run one code block in a sandbox.", {})
      .with({})
      .observe(outcome.ms / 1000);
}

}  // namespace

sandbox_session::sandbox_session(const asio::any_io_executor& executor, std::string id, sandbox_lease lease,
                                 std::shared_ptr<bridge::data_filter> filter)
    : executor_(executor),
      id_(std::move(id)),
      warm_(lease.warm),
      container_(std::move(lease.container)),
      channel_(std::move(lease.channel)),
      calls_(std::move(lease.calls)),
      filter_(std::move(filter)) {}

sandbox_session::~sandbox_session() = default;  // the container's own destructor removes it

asio::awaitable<result<std::unique_ptr<sandbox_session>>> sandbox_session::open(
    const asio::any_io_executor& executor, warm_pool& pool, bridge::tool_gateway& tools,
    std::shared_ptr<bridge::data_filter> filter, sandbox_session_options options) {
  if (!filter) filter = std::make_shared<bridge::identity_filter>();
  // A pooled container may have died while it waited: then try once more,
  // which cold-starts when the pool has nothing else.
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto lease = co_await pool.claim();
    if (!lease) co_return lease.error();
    std::unique_ptr<sandbox_session> session(new sandbox_session(executor, options.id, std::move(*lease), filter));
    session->metrics_ = options.metrics;
    session->runtime_ = bridge::create_runtime_session(executor, *session->channel_, tools, *session->filter_,
                                                       options.limits, std::move(session->calls_));
    auto init = co_await session->runtime_->init(options.id, options.files);
    if (init) co_return session;
    core::log_warn("sandbox {} failed at init ({}); discarding it", session->container_->id().substr(0, 12),
                   init.error().message);
    co_await session->close();
  }
  co_return make_error("sandbox_failed", "no sandbox could be started for this request",
                       "check GET /health (docker engine, sandbox image)");
}

asio::awaitable<bridge::exec_result> sandbox_session::exec(std::string code, std::chrono::milliseconds timeout) {
  if (killed_ || !runtime_) {
    bridge::exec_result out;
    out.error = {{"name", "SandboxError"}, {"message", "the sandbox was stopped"}};
    co_return out;
  }
  auto outcome = co_await runtime_->exec(std::move(code), timeout);
  if (metrics_) record(*metrics_, outcome);
  co_return outcome;
}

void sandbox_session::kill() {
  if (killed_ || !container_) return;
  killed_ = true;
  // stop() closes the attach stream and removes the container, which ends a
  // block in flight; the coroutine holds its own reference to the container.
  auto container = container_;
  asio::co_spawn(executor_, [container]() -> asio::awaitable<void> {
    auto stopped = co_await container->stop();
    if (!stopped) core::log_warn("could not stop sandbox container: {}", stopped.error().describe());
  }, asio::detached);
}

asio::awaitable<void> sandbox_session::close() {
  runtime_.reset();
  channel_.reset();
  if (!container_) co_return;
  auto container = std::move(container_);
  auto stopped = co_await container->stop();
  if (!stopped) core::log_warn("could not remove sandbox container: {}", stopped.error().describe());
}

bool sandbox_session::broken() const { return killed_ || !runtime_ || runtime_->broken(); }

}  // namespace harness::execution
