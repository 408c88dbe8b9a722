#include "harness/telemetry/tracer.hpp"

#include <atomic>
#include <mutex>

#include <boost/asio/post.hpp>

#include "harness/core/async_event.hpp"
#include "harness/core/async_signal.hpp"
#include "harness/core/ids.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/metrics.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/core/with_deadline.hpp"

namespace harness::telemetry {
namespace asio = boost::asio;

bool sampler::decide(std::string_view trace_id, std::optional<bool> parent_sampled) const {
  const bool parent_based = kind == sampler_kind::parent_always_on || kind == sampler_kind::parent_always_off ||
                            kind == sampler_kind::parent_trace_id_ratio;
  if (parent_based && parent_sampled) return *parent_sampled;
  switch (kind) {
    case sampler_kind::always_on:
    case sampler_kind::parent_always_on:
      return true;
    case sampler_kind::always_off:
    case sampler_kind::parent_always_off:
      return false;
    case sampler_kind::trace_id_ratio:
    case sampler_kind::parent_trace_id_ratio:
      break;
  }
  if (ratio >= 1.0) return true;
  if (ratio <= 0.0 || trace_id.size() < 16) return false;
  // The trace id's last 8 bytes as a number below ratio * 2^64 (W3C trace
  // ids are random in their right part).
  std::uint64_t low = 0;
  for (char c : trace_id.substr(trace_id.size() - 16)) {
    low = low << 4 | static_cast<std::uint64_t>(core::hex_digit_value(c));
  }
  return static_cast<double>(low) < ratio * 18446744073709551616.0;
}

span tracer::start_root(const std::shared_ptr<tracer>& owner, std::string_view name, span_kind kind,
                        const std::optional<core::trace_context>& remote) {
  span_context parent;
  if (remote) parent = {remote->trace_id, remote->parent_id, remote->sampled, remote->state};
  return span_parent(owner, std::move(parent)).child(name, kind);
}

namespace {

class tracer_impl final : public tracer {
 public:
  tracer_impl(asio::any_io_executor executor, core::clock& clock, tracer_options options,
              std::unique_ptr<span_exporter> exporter, std::shared_ptr<core::metrics_registry> metrics)
      : executor_(std::move(executor)),
        clock_(clock),
        options_(options),
        exporter_(std::move(exporter)),
        wake_(executor_, clock),
        loop_ended_(executor_),
        metrics_(std::move(metrics)) {
    if (metrics_) {
      exported_ =
          &metrics_->counters("harness_trace_spans_exported_total", "Spans sent to the OTLP collector").with({});
      auto& dropped =
          metrics_->counters("harness_trace_spans_dropped_total",
                             "Spans lost: the queue was full (collector slow or down), a batch failed, or the span "
                             "ended after shutdown",
                             {"reason"});
      dropped_full_ = &dropped.with({"queue_full"});
      dropped_failed_ = &dropped.with({"export_failed"});
      dropped_shutdown_ = &dropped.with({"shutdown"});
    }
  }

  void start() override {
    started_ = true;
    auto self = std::static_pointer_cast<tracer_impl>(shared_from_this());
    core::spawn_logged(
        executor_, [self]() { return self->export_loop(); }, "trace export");
  }

  asio::awaitable<void> shutdown(std::chrono::milliseconds grace) override {
    if (stopped_.exchange(true) || !started_) co_return;
    wake_.notify_all();
    auto ended = loop_ended_.wait();  // named: GCC 12 and temporaries in co_await
    co_await core::with_deadline(clock_, std::move(ended), clock_.steady_now() + grace);
  }

  bool capture_content() const override { return options_.capture_content; }
  std::uint64_t dropped() const override { return dropped_count_.load(); }

 protected:
  span start_span(std::string_view name, span_kind kind, const span_context& parent) override {
    span_context context;
    std::optional<bool> parent_sampled;
    if (parent.valid()) {
      context.trace_id = parent.trace_id;
      context.state = parent.state;
      parent_sampled = parent.sampled;
    } else {
      context.trace_id = core::make_id("", 16);
    }
    context.span_id = core::make_id("", 8);
    context.sampled = options_.sampler.decide(context.trace_id, parent_sampled);
    std::unique_ptr<span_data> data;
    if (context.sampled) {
      data = std::make_unique<span_data>();
      data->context = context;
      if (parent.valid()) data->parent_span_id = parent.span_id;
      data->name = std::string(name);
      data->kind = kind;
    }
    return make_span(std::move(context), std::move(data));
  }

  void finish(std::unique_ptr<span_data> data) override {
    bool wake = false;
    {
      std::lock_guard lock(mutex_);
      // After shutdown nothing sends any more: the span is counted as lost.
      if (stopped_.load()) {
        drop(1, dropped_shutdown_);
        return;
      }
      if (queue_.size() >= options_.max_queue) {
        drop(1, dropped_full_);
        return;
      }
      queue_.push_back(std::move(*data));
      // A full batch goes now, not at the next scheduled export.
      wake = queue_.size() >= options_.max_batch && !wake_posted_;
      if (wake) wake_posted_ = true;
    }
    if (wake) {
      auto self = std::static_pointer_cast<tracer_impl>(shared_from_this());
      asio::post(executor_, [self] { self->wake_.notify_all(); });
    }
  }

  std::int64_t now_ns() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(clock_.system_now().time_since_epoch()).count();
  }

 private:
  // One batch in flight at a time, always from here; at shutdown it sends
  // what is left and ends.
  asio::awaitable<void> export_loop() {
    for (;;) {
      if (!stopped_.load() && queued() < options_.max_batch) {
        co_await wake_.wait_until(clock_.steady_now() + options_.schedule_delay);
      }
      co_await export_queued();
      if (stopped_.load()) break;
    }
    loop_ended_.set();
  }

  std::size_t queued() {
    std::lock_guard lock(mutex_);
    return queue_.size();
  }

  void drop(std::uint64_t n, core::counter* reason) {
    dropped_count_.fetch_add(n);
    if (reason) reason->inc(n);
  }

  // Sends batches until the queue is empty.
  asio::awaitable<void> export_queued() {
    for (;;) {
      std::vector<span_data> batch;
      {
        std::lock_guard lock(mutex_);
        wake_posted_ = false;
        if (queue_.empty()) co_return;
        auto n = std::min(queue_.size(), options_.max_batch);
        batch.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.begin() + n));
        queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
      }
      const auto count = batch.size();
      auto sent = co_await exporter_->send(std::move(batch));
      if (sent) {
        if (exported_) exported_->inc(count);
        failing_ = false;
        continue;
      }
      drop(count, dropped_failed_);
      // Once per outage, not once per batch: a collector that is down would flood the log.
      if (!failing_) core::log_warn("trace export failed, {} span(s) lost: {}", count, sent.error().describe());
      failing_ = true;
    }
  }

  asio::any_io_executor executor_;
  core::clock& clock_;
  tracer_options options_;
  std::unique_ptr<span_exporter> exporter_;
  core::async_signal wake_;       // on executor_: a full batch, or shutdown
  core::async_event loop_ended_;  // on executor_
  bool started_ = false;          // on executor_
  bool failing_ = false;          // on executor_
  std::atomic<bool> stopped_{false};

  std::mutex mutex_;
  std::vector<span_data> queue_;  // finished spans, oldest first; at most max_queue
  bool wake_posted_ = false;

  std::atomic<std::uint64_t> dropped_count_{0};
  std::shared_ptr<core::metrics_registry> metrics_;  // keeps the counters below alive
  core::counter* exported_ = nullptr;
  core::counter* dropped_full_ = nullptr;
  core::counter* dropped_failed_ = nullptr;
  core::counter* dropped_shutdown_ = nullptr;
};

}  // namespace

std::shared_ptr<tracer> tracer::create(asio::any_io_executor executor, core::clock& clock, tracer_options options,
                                       std::unique_ptr<span_exporter> exporter,
                                       std::shared_ptr<core::metrics_registry> metrics) {
  return std::make_shared<tracer_impl>(std::move(executor), clock, options, std::move(exporter), metrics);
}

}  // namespace harness::telemetry
