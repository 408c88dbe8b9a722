// Metrics: counters, gauges and fixed-bucket histograms with label sets, kept
// in one registry and rendered for `GET /metrics` in the Prometheus text
// exposition format 0.0.4. A thin façade over prometheus-cpp's core
// (prometheus::Registry, Family<Counter/Gauge/Histogram>, TextSerializer):
// the values live in prometheus-cpp's metrics; the façade adds what our
// components rely on and the library does not do (see metrics_registry).
//
// Hot path: a labelled child is created once and keeps its address for the
// life of the registry, so a caller may look it up once and keep the
// reference; a lookup by label values builds its key on the stack and does
// not allocate once the child exists (prometheus-cpp's own lookup takes a
// std::map of strings, so the façade caches the child by its values).
//
// Thread-safety: everything is safe to call from any thread. Counting and
// setting are atomic; a histogram observation takes that histogram's mutex
// (prometheus-cpp's); lookups take a shared lock; creation and render take
// the family's lock.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace prometheus {
class Counter;
class Gauge;
class Histogram;
class Registry;
template <typename T>
class Family;
}  // namespace prometheus

namespace harness::core {

// A value that only goes up (requests served, tokens sent). A handle on a
// prometheus::Counter its family owns; the value is a double, exact up to 2^53.
class counter {
 public:
  using impl_type = prometheus::Counter;
  explicit counter(prometheus::Counter& impl) noexcept : impl_(impl) {}
  void inc(std::uint64_t n = 1) noexcept;
  std::uint64_t value() const noexcept;

 private:
  prometheus::Counter& impl_;
};

// A value that goes up and down (sandboxes ready, sessions open).
class gauge {
 public:
  using impl_type = prometheus::Gauge;
  explicit gauge(prometheus::Gauge& impl) noexcept : impl_(impl) {}
  void set(double v) noexcept;
  void add(double v) noexcept;
  double value() const noexcept;

 private:
  prometheus::Gauge& impl_;
};

// Observations counted into fixed buckets (upper bounds, inclusive, ascending;
// +Inf is implicit), with their sum.
class histogram {
 public:
  using impl_type = prometheus::Histogram;
  explicit histogram(prometheus::Histogram& impl) noexcept : impl_(impl) {}
  void observe(double v);

 private:
  prometheus::Histogram& impl_;
};

// Seconds buckets for request latencies: 0.5 ms to 10 s.
const std::vector<double>& default_latency_buckets();

enum class metric_type { counter, gauge, histogram };

// Transparent hashing so a lookup by string_view builds no std::string.
struct string_hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

class metrics_registry;

// The children of one metric name, one per combination of label values.
// with() takes exactly as many values as the family has label names (extra
// values are ignored, missing ones are empty); label values are free text.
// Created by metrics_registry only.
template <class Metric>
class family {
 public:
  using impl_type = prometheus::Family<typename Metric::impl_type>;
  family(impl_type& impl, std::vector<std::string> label_names, std::vector<double> bounds = {})
      : impl_(impl), label_names_(std::move(label_names)), bounds_(std::move(bounds)) {}

  Metric& with(std::initializer_list<std::string_view> values);

 private:
  friend class metrics_registry;

  impl_type& impl_;
  std::vector<std::string> label_names_;
  std::vector<double> bounds_;  // histograms only
  mutable std::shared_mutex mutex_;
  // Keyed by the values joined by a separator. Node-based: a child keeps its
  // address when the map grows.
  std::unordered_map<std::string, Metric, string_hash, std::equal_to<>> children_;
};

// One sample of a callback metric: label values (as many as the label names) and value.
struct sample {
  std::vector<std::string> labels;
  double value = 0;
};
// Evaluated at each scrape, on the scraping thread, under the registry's lock:
// must be cheap, must not block and must not call the registry.
using sample_callback = std::function<std::vector<sample>()>;

// Owns a prometheus::Registry and renders it with prometheus::TextSerializer,
// keeping what the served text looked like before the library:
// - every registered family is listed (HELP and TYPE) from the start, even
//   with no child yet; a child created by with() and never touched is a zero
//   series, so components pre-register the label values they know;
// - families are sorted by name, children by label values, and labels are in
//   the order the family declared them (prometheus-cpp sorts them by name);
// - HELP text is escaped (backslash, newline), as are label values;
// - callback metrics, which prometheus-cpp does not have, are computed at
//   each scrape and rendered by the same serializer.
// Left to the library: numbers are written with 16 significant digits, NaN
// as `Nan` (both parse as Go's ParseFloat, as the format requires), a
// histogram's _count and _sum come before its buckets, and an empty help
// text writes no HELP line.
class metrics_registry {
 public:
  metrics_registry();
  ~metrics_registry();
  metrics_registry(const metrics_registry&) = delete;
  metrics_registry& operator=(const metrics_registry&) = delete;

  // Each returns the family of that name, creating it on first use; the
  // reference stays valid for the life of the registry. Registering a name
  // again with the same type and labels returns the same family, so
  // components may each ask for it (the first help text stays). A clash
  // (same name, other type or labels, or a name or label that Prometheus
  // does not accept, `le` included) throws std::invalid_argument: that is a
  // programming error found at start-up.
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

  std::unique_ptr<prometheus::Registry> registry_;  // owns every family's metrics
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
