// The tracer: starts spans (deciding which traces are sampled), keeps the
// finished ones in a bounded queue and hands them to an exporter in batches,
// on the tracer's executor, never on the path of a request. When the
// collector is slow or down the queue fills and further spans are dropped
// and counted (harness_trace_spans_dropped_total); a request never waits for
// the exporter and memory never grows past the queue.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "harness/core/clock.hpp"
#include "harness/core/error.hpp"
#include "harness/core/trace_context.hpp"
#include "harness/telemetry/span.hpp"

namespace harness::core {
class metrics_registry;
}

namespace harness::telemetry {

// OTEL_TRACES_SAMPLER: whether a new span of a trace is recorded. The
// parent-based ones follow the parent's sampled flag when there is a parent
// (a caller's traceparent, or a span of ours) and use their root rule otherwise.
enum class sampler_kind {
  always_on,
  always_off,
  trace_id_ratio,
  parent_always_on,  // the default
  parent_always_off,
  parent_trace_id_ratio,
};

struct sampler {
  sampler_kind kind = sampler_kind::parent_always_on;
  double ratio = 1.0;  // OTEL_TRACES_SAMPLER_ARG, for the ratio samplers, 0..1
  // The decision for a new span of `trace_id` with a parent whose flag is
  // `parent_sampled` (nullopt: a root). The ratio rule reads the trace id's
  // last 16 hex digits, so every service that uses it agrees on a trace.
  bool decide(std::string_view trace_id, std::optional<bool> parent_sampled) const;
};

// Sends batches of finished spans somewhere (OTLP over HTTP; a fake in tests).
class span_exporter {
 public:
  virtual ~span_exporter() = default;
  // One batch; ok, or why it was lost (logged and counted; never retried:
  // the next batch is already waiting).
  virtual boost::asio::awaitable<status> send(std::vector<span_data> batch) = 0;
};

struct tracer_options {
  telemetry::sampler sampler;
  std::size_t max_queue = 2048;  // OTEL_BSP_MAX_QUEUE_SIZE
  std::size_t max_batch = 512;   // OTEL_BSP_MAX_EXPORT_BATCH_SIZE
  // OTEL_BSP_SCHEDULE_DELAY: how long a span may wait for its batch; a full
  // batch goes at once.
  std::chrono::milliseconds schedule_delay{5000};
  bool capture_content = false;  // OTEL_CAPTURE_CONTENT
};

class tracer : public std::enable_shared_from_this<tracer> {
 public:
  // The export loop runs on `executor`; `metrics` (may be null) gets the
  // span counters. Call start() to begin exporting.
  static std::shared_ptr<tracer> create(boost::asio::any_io_executor executor, core::clock& clock,
                                        tracer_options options, std::unique_ptr<span_exporter> exporter,
                                        std::shared_ptr<core::metrics_registry> metrics);
  virtual ~tracer() = default;

  // A span with no parent of ours: the child of `remote` when a caller sent
  // its trace context, else the root of a new trace. Inert when `owner` is
  // null (tracing off), but then still carrying `remote`'s trace onward.
  static span start_root(const std::shared_ptr<tracer>& owner, std::string_view name, span_kind kind,
                         const std::optional<core::trace_context>& remote);

  // Starts the export loop (on the executor).
  virtual void start() = 0;
  // On the executor: the loop sends what is queued (the batch in flight
  // included) and ends; this returns when it has, or after `grace`. Spans
  // that end later are dropped and counted.
  virtual boost::asio::awaitable<void> shutdown(std::chrono::milliseconds grace) = 0;

  virtual bool capture_content() const = 0;
  // Spans dropped because the queue was full, since start.
  virtual std::uint64_t dropped() const = 0;

 protected:
  friend class span;
  friend class span_parent;
  // A child of `parent` (a span of ours or a caller's), sampled by the sampler.
  virtual span start_span(std::string_view name, span_kind kind, const span_context& parent) = 0;
  // A finished, recorded span; thread-safe, never waits.
  virtual void finish(std::unique_ptr<span_data> data) = 0;
  // The time of `data`'s start, end and events.
  virtual std::int64_t now_ns() const = 0;

  // For implementations: a span of this tracer, recording into `data` (null: not sampled).
  span make_span(span_context context, std::unique_ptr<span_data> data);
};

}  // namespace harness::telemetry
