// Metrics: counters, gauges and fixed-bucket histograms with label sets, kept
// in one registry and rendered for `GET /metrics` in the Prometheus text
// exposition format 0.0.4. Dependency-free and cheap on the hot path: a
// labelled child is created once and keeps its address for the life of the
// registry, so a caller may look it up once and keep the reference; a lookup
// by label values builds its key on the stack and does not allocate once the
// child exists.
//
// Thread-safety: everything is safe to call from any thread. Recording is a
// relaxed atomic add; lookups take a shared lock; creation and render take
// the family's lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace harness::core {

// A value that only goes up (requests served, tokens sent).
class counter {
 public:
  void inc(std::uint64_t n = 1) noexcept { value_.fetch_add(n, std::memory_order_relaxed); }
  std::uint64_t value() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
};

// A value that goes up and down (sandboxes ready, sessions open).
class gauge {
 public:
  void set(double v) noexcept { value_.store(v, std::memory_order_relaxed); }
  void add(double v) noexcept { value_.fetch_add(v, std::memory_order_relaxed); }
  double value() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Observations counted into fixed buckets (upper bounds, ascending; +Inf is
// implicit), with their sum.
class histogram {
 public:
  explicit histogram(const std::vector<double>& bounds);
  void observe(double v) noexcept;

  struct snapshot {
    std::vector<std::uint64_t> cumulative;  // one per bound, then +Inf (= count)
    double sum = 0;
  };
  snapshot read() const;
  const std::vector<double>& bounds() const { return bounds_; }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;  // bounds_.size() + 1 (the last is +Inf)
  std::atomic<double> sum_{0};
};

// Seconds buckets for request latencies: 0.5 ms to 10 s.
const std::vector<double>& default_latency_buckets();

enum class metric_type { counter, gauge, histogram };

// Transparent hashing so a lookup by string_view builds no std::string.
struct string_hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

// The children of one metric name, one per combination of label values.
// with() takes exactly as many values as the family has label names (extra
// values are ignored, missing ones are empty); label values are free text.
template <class Metric>
class family {
 public:
  family(std::vector<std::string> label_names, std::vector<double> bounds = {})
      : label_names_(std::move(label_names)), bounds_(std::move(bounds)) {}

  Metric& with(std::initializer_list<std::string_view> values);

  const std::vector<std::string>& label_names() const { return label_names_; }
  // Calls fn(label values, metric) for every child, sorted by label values.
  void for_each(const std::function<void(const std::vector<std::string>&, const Metric&)>& fn) const;

 private:
  struct child {
    std::vector<std::string> values;
    Metric metric;
  };
  std::unique_ptr<child> make_child(std::initializer_list<std::string_view> values) const;

  std::vector<std::string> label_names_;
  std::vector<double> bounds_;  // histograms only
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::string, std::unique_ptr<child>, string_hash, std::equal_to<>> children_;
};

// One sample of a callback metric: label values (as many as the label names) and value.
struct sample {
  std::vector<std::string> labels;
  double value = 0;
};
// Evaluated at each scrape, on the scraping thread, under the registry's lock:
// must be cheap, must not block and must not call the registry.
using sample_callback = std::function<std::vector<sample>()>;

class metrics_registry {
 public:
  metrics_registry();
  ~metrics_registry();
  metrics_registry(const metrics_registry&) = delete;
  metrics_registry& operator=(const metrics_registry&) = delete;

  // Each returns the family of that name, creating it on first use; the
  // reference stays valid for the life of the registry. Registering a name
  // again with the same type and labels returns the same family, so
  // components may each ask for it. A clash (same name, other type or labels,
  // or a name or label that Prometheus does not accept) throws
  // std::invalid_argument: that is a programming error found at start-up.
  family<counter>& counters(std::string_view name, std::string_view help, std::vector<std::string> labels = {});
  family<gauge>& gauges(std::string_view name, std::string_view help, std::vector<std::string> labels = {});
  family<histogram>& histograms(std::string_view name, std::string_view help, std::vector<std::string> labels,
                                std::vector<double> bounds = default_latency_buckets());

  // A counter or gauge whose samples `fn` computes at scrape time (a pool's
  // size, a count another component keeps). Replaces an earlier callback of
  // the same name; throws std::invalid_argument on a clash with a family.
  void add_callback(std::string_view name, std::string_view help, metric_type type, std::vector<std::string> labels,
                    sample_callback fn);

  // The whole registry in the text exposition format 0.0.4, families sorted by name.
  std::string render() const;

 private:
  struct entry;
  entry& find_or_add(std::string_view name, std::string_view help, metric_type type,
                     const std::vector<std::string>& labels);

  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<entry>, std::less<>> entries_;
};

// The Content-Type of render()'s output.
inline constexpr std::string_view metrics_content_type = "text/plain; version=0.0.4; charset=utf-8";

// harness_build_info{version} 1 and process_start_time_seconds (now, as Unix time).
void register_process_metrics(metrics_registry& registry, std::string_view version);

// harness_tasks_total{status}: the agent counts each task that reaches a final
// status ("completed", "failed", "cancelled", "timeout"...) with
// task_counter(registry).with({status}).inc().
family<counter>& task_counter(metrics_registry& registry);

}  // namespace harness::core
