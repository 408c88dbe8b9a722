#include "harness/execution/sandbox_session.hpp"

#include <boost/asio/co_spawn.hpp>

#include <fmt/format.h>

#include "harness/bridge/errors.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/run_blocking.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/telemetry/tracer.hpp"

namespace harness::execution {

namespace asio = boost::asio;

namespace {

// The outcome label of a finished block: the error names the runtime session
// gives to failures of the sandbox rather than of the code.
std::string_view exec_outcome(const bridge::exec_result& outcome) {
  switch (outcome.failure) {
    case bridge::failure_kind::none:
      return outcome.ok ? "ok" : "error";
    case bridge::failure_kind::code:
      return "error";
    case bridge::failure_kind::timeout:
      return "timeout";
    case bridge::failure_kind::sandbox:
    case bridge::failure_kind::protocol:
      return "sandbox_error";
  }
  return "error";
}

core::family<core::counter>& exec_counter(core::metrics_registry& metrics) {
  return metrics.counters("harness_sandbox_execs_total",
                          "Code blocks run in a sandbox, by outcome (ok, error, timeout, sandbox_error).", {"outcome"});
}

core::family<core::histogram>& exec_seconds(core::metrics_registry& metrics) {
  return metrics.histograms("harness_sandbox_exec_duration_seconds", "Time to run one code block in a sandbox.", {});
}

void record(core::metrics_registry& metrics, const bridge::exec_result& outcome) {
  exec_counter(metrics).with({exec_outcome(outcome)}).inc();
  exec_seconds(metrics).with({}).observe(outcome.ms / 1000);
}

}  // namespace

void register_exec_metrics(core::metrics_registry& metrics) {
  for (const char* outcome : {"ok", "error", "timeout", "sandbox_error"}) exec_counter(metrics).with({outcome});
  exec_seconds(metrics).with({});
}

// The attached stdio of a runtime that speaks on its call socket. Shared with
// the coroutine that reads it, which keeps the channel and the container (and
// so the attach stream) alive until its last read has completed.
struct sandbox_session::stdio_drain {
  std::unique_ptr<bridge::frame_channel> channel;
  std::shared_ptr<sandbox::sandbox_container> container;
  bool flooded = false;  // wrote past stray_output_limit: the container was stopped
};

namespace {

// Stray stdout (code writing to the real process.stdout rather than through
// console.*, which is captured and capped) past this stops the sandbox, as an
// output flood stops a one-shot block.
constexpr std::size_t stray_output_limit = 1 << 20;

}  // namespace

// Logs what a linked runtime's stdio still carries (stray writes of the
// block's code; the runtime's stderr is logged by the channel itself) and
// keeps the pipes from filling. Ends when the container's output ends or the
// session cancels the channel.
asio::awaitable<void> sandbox_session::drain_stdio(std::shared_ptr<stdio_drain> drain) {
  constexpr std::size_t log_cap = 16 * 1024;
  std::size_t seen = 0;
  for (;;) {
    auto line = co_await drain->channel->read_line();
    if (!line && line.error().code != bridge::errc::frame_too_large) co_return;  // the output ended, or we hung up
    std::size_t bytes = line ? line->size() + 1 : stray_output_limit + 1;
    if (line && seen < log_cap) {
      core::log_debug("sandbox {} stdout: {}", drain->container->id().substr(0, 12), line->substr(0, log_cap));
    }
    seen += bytes;
    if (seen > stray_output_limit) {
      drain->flooded = true;
      core::log_warn("sandbox {} wrote more than {} bytes to stdout; stopping it", drain->container->id().substr(0, 12),
                     stray_output_limit);
      auto stopped = co_await drain->container->stop();  // the block then fails: its channel ends
      if (!stopped) core::log_warn("could not stop sandbox container: {}", stopped.error().describe());
      co_return;
    }
  }
}

sandbox_session::sandbox_session(const asio::any_io_executor& executor, std::string id, sandbox_lease lease,
                                 std::shared_ptr<bridge::data_filter> filter)
    : executor_(executor),
      id_(std::move(id)),
      warm_(lease.warm),
      container_(std::move(lease.container)),
      tracer_(std::move(lease.tracer)),
      channel_(std::move(lease.channel)),
      filter_(std::move(filter)) {
  if (lease.stdio) {
    drain_ = std::make_shared<stdio_drain>(stdio_drain{std::move(lease.stdio), container_});
    auto reader = drain_stdio(drain_);  // a local: GCC 12 and temporaries in co_spawn, see run_blocking.hpp
    core::spawn_logged(executor_, std::move(reader), "session " + id_ + ": draining stdio");
  }
}

sandbox_session::~sandbox_session() {
  // Ends the drain's read; it then lets go of the container, whose own
  // destructor removes it.
  if (drain_) drain_->channel->cancel();
}

asio::awaitable<result<std::unique_ptr<sandbox_session>>> sandbox_session::open(
    const asio::any_io_executor& executor, core::clock& clock, warm_pool& pool, bridge::tool_gateway& tools,
    std::shared_ptr<bridge::data_filter> filter, sandbox_session_options options) {
  if (!filter) filter = std::make_shared<bridge::identity_filter>();
  // The tools as this session's user reaches them (their instances of user-scoped servers).
  std::shared_ptr<bridge::tool_gateway> acting = tools.acting_for(options.user_id);
  std::vector<bridge::init_file> files;
  if (options.files) {
    files = co_await core::run_blocking(
        options.blocking, [&] { return options.files->init_files(options.user_id, options.workspace_id); });
  }
  // A pooled container may have died while it waited: then try once more,
  // which cold-starts when the pool has nothing else.
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto lease = co_await pool.claim();
    if (!lease) co_return lease.error();
    std::unique_ptr<sandbox_session> session(new sandbox_session(executor, options.id, std::move(*lease), filter));
    session->metrics_ = options.metrics;
    session->options_ = options;
    session->tools_ = acting;
    session->runtime_ = bridge::create_runtime_session(executor, clock, *session->channel_, acting ? *acting : tools,
                                                       *session->filter_, options.limits);
    auto init = co_await session->runtime_->init(options.id, files);
    if (init) co_return session;
    core::log_warn("sandbox {} failed at init ({}); discarding it", session->container_->id().substr(0, 12),
                   init.error().message);
    co_await session->close();
  }
  co_return make_error(bridge::errc::sandbox_failed, "no sandbox could be started for this request",
                       "check GET /health (docker engine, sandbox image)");
}

asio::awaitable<bridge::exec_result> sandbox_session::exec(std::string code, std::chrono::milliseconds timeout,
                                                           telemetry::span_parent trace) {
  if (killed_ || !runtime_) {
    bridge::exec_result out;
    bridge::fail(out, bridge::failure_kind::sandbox, "the sandbox was stopped");
    co_return out;
  }
  auto outcome = co_await runtime_->exec(std::move(code), timeout, std::move(trace));
  if (drain_ && drain_->flooded && !outcome.ok) {
    bridge::fail(outcome, bridge::failure_kind::sandbox,
                 fmt::format("the code wrote more than {} bytes to the process's stdout and the sandbox "
                             "was stopped; print with console.log (captured and capped), or write "
                             "large output to /workspace",
                             stray_output_limit));
  }
  if (metrics_) record(*metrics_, outcome);
  if (options_.files && !outcome.files.empty()) outcome.files_report = co_await write_back(outcome.files);
  co_return outcome;
}

asio::awaitable<nlohmann::json> sandbox_session::write_back(const std::vector<bridge::file_change>& changes) {
  co_return co_await core::run_blocking(
      options_.blocking, [&] { return options_.files->apply(options_.user_id, options_.workspace_id, changes); });
}

asio::awaitable<status> sandbox_session::put(std::vector<bridge::init_file> files, std::chrono::milliseconds timeout) {
  if (options_.files) {
    std::vector<bridge::file_change> changes;
    for (const auto& f : files) {
      bridge::file_change change;
      change.root = f.root;
      change.path = f.path;
      change.op = "write";
      change.content = f.content;
      change.size = f.content.size();
      changes.push_back(std::move(change));
    }
    auto report = co_await write_back(changes);
    if (!report.value("refused", nlohmann::json::array()).empty()) {
      core::log_warn("sandbox {}: the host refused some of its own files: {}", id_, report["refused"].dump());
    }
  }
  if (killed_ || !runtime_) co_return make_error(bridge::errc::sandbox_failed, "the sandbox was stopped");
  co_return co_await runtime_->put(std::move(files), timeout);
}

void sandbox_session::kill() {
  if (killed_ || !container_) return;
  killed_ = true;
  // stop() closes the attach stream and removes the container, which ends a
  // block in flight; the coroutine holds its own reference to the container.
  auto container = container_;
  core::spawn_logged(
      executor_,
      [container, tracer = tracer_]() -> asio::awaitable<void> {
        auto stopped = co_await remove_container(tracer, *container);
        if (!stopped) core::log_warn("could not stop sandbox container: {}", stopped.error().describe());
      },
      "session " + id_ + ": stopping its sandbox");
}

asio::awaitable<status> sandbox_session::remove_container(const std::shared_ptr<telemetry::tracer>& tracer,
                                                          sandbox::sandbox_container& container) {
  // A trace of its own: removals happen after the answer, on nobody's request.
  auto span = telemetry::tracer::start_root(tracer, "sandbox.remove", telemetry::span_kind::internal, std::nullopt);
  auto stopped = co_await container.stop();
  if (!stopped) span.fail(stopped.error().code.wire_name());
  co_return stopped;
}

asio::awaitable<void> sandbox_session::close() {
  runtime_.reset();
  channel_.reset();
  if (drain_) drain_->channel->cancel();
  if (!container_) co_return;
  auto container = std::move(container_);
  auto stopped = co_await remove_container(tracer_, *container);
  if (!stopped) core::log_warn("could not remove sandbox container: {}", stopped.error().describe());
}

bool sandbox_session::broken() const {
  return killed_ || !runtime_ || runtime_->broken();
}

}  // namespace harness::execution
