#include "harness/core/metrics.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <variant>

#include <fmt/format.h>
#include <prometheus/check_names.h>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

namespace harness::core {
namespace {

// Separates label values inside a child's key; cannot clash with a value's
// text in practice, and a clash would only merge two series.
constexpr char key_separator = '\x1f';

// prometheus-cpp writes HELP text as given; the format wants backslash and
// newline escaped there.
std::string escape_help(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

prometheus::MetricType library_type(metric_type type) {
  switch (type) {
    case metric_type::counter:
      return prometheus::MetricType::Counter;
    case metric_type::gauge:
      return prometheus::MetricType::Gauge;
    case metric_type::histogram:
      return prometheus::MetricType::Histogram;
  }
  return prometheus::MetricType::Untyped;
}

// prometheus-cpp keeps a child's labels in a std::map, so they come out sorted
// by name; put them back in the family's declared order.
void order_labels(prometheus::ClientMetric& metric, const std::vector<std::string>& names) {
  std::vector<prometheus::ClientMetric::Label> ordered;
  ordered.reserve(names.size());
  for (const auto& name : names) {
    auto found = std::find_if(metric.label.begin(), metric.label.end(),
                              [&](const prometheus::ClientMetric::Label& l) { return l.name == name; });
    ordered.push_back({name, found == metric.label.end() ? std::string() : std::move(found->value)});
  }
  metric.label = std::move(ordered);
}

// With labels in declared order, comparing the label lists compares the values.
void sort_children(std::vector<prometheus::ClientMetric>& metrics) {
  std::sort(metrics.begin(), metrics.end(),
            [](const prometheus::ClientMetric& a, const prometheus::ClientMetric& b) { return a.label < b.label; });
}

}  // namespace

// ---- the metrics ----

void counter::inc(std::uint64_t n) noexcept {
  impl_.Increment(static_cast<double>(n));
}
std::uint64_t counter::value() const noexcept {
  return static_cast<std::uint64_t>(impl_.Value());
}

void gauge::set(double v) noexcept {
  impl_.Set(v);
}
void gauge::add(double v) noexcept {
  impl_.Increment(v);
}
double gauge::value() const noexcept {
  return impl_.Value();
}

void histogram::observe(double v) {
  impl_.Observe(v);
}

const std::vector<double>& default_latency_buckets() {
  static const std::vector<double> buckets{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                           0.1,    0.25,  0.5,    1,     2.5,  5,     10};
  return buckets;
}

// ---- family ----

template <class Metric>
Metric& family<Metric>::with(std::initializer_list<std::string_view> values) {
  // The key is the values joined by a separator, built on the stack when it fits.
  std::array<char, 256> stack;
  std::string heap;
  std::size_t length = 0;
  std::size_t n = 0;
  for (std::string_view v : values) {
    if (n++ == label_names_.size()) break;
    length += v.size() + 1;
  }
  char* out = stack.data();
  if (length > stack.size()) {
    heap.resize(length);
    out = heap.data();
  }
  std::size_t pos = 0;
  n = 0;
  for (std::string_view v : values) {
    if (n++ == label_names_.size()) break;
    std::copy(v.begin(), v.end(), out + pos);
    pos += v.size();
    out[pos++] = key_separator;
  }
  std::string_view key(out, pos);
  {
    std::shared_lock lock(mutex_);
    auto found = children_.find(key);
    if (found != children_.end()) return found->second;
  }
  std::unique_lock lock(mutex_);
  auto found = children_.find(key);
  if (found != children_.end()) return found->second;

  prometheus::Labels labels;
  auto it = values.begin();
  for (const auto& name : label_names_) {
    labels.emplace(name, it == values.end() ? std::string() : std::string(*it));
    if (it != values.end()) ++it;
  }
  typename Metric::impl_type* impl = nullptr;
  if constexpr (std::is_same_v<Metric, histogram>) {
    impl = &impl_.Add(labels, bounds_);
  } else {
    impl = &impl_.Add(labels);
  }
  return children_.try_emplace(std::string(key), *impl).first->second;
}

template class family<counter>;
template class family<gauge>;
template class family<histogram>;

// ---- registry ----

struct metrics_registry::entry {
  std::string help;  // escaped for the HELP line
  metric_type type;
  std::vector<std::string> labels;
  std::variant<std::monostate, family<counter>, family<gauge>, family<histogram>> metrics;
  sample_callback callback;  // set for callback metrics
  std::mutex callback_mutex;

  entry(std::string_view h, metric_type t, std::vector<std::string> l)
      : help(escape_help(h)), type(t), labels(std::move(l)) {}

  // This family as prometheus-cpp's serializer takes it: listed even when empty.
  prometheus::MetricFamily collect(const std::string& name) {
    prometheus::MetricFamily out;
    std::visit(
        [&](auto& f) {
          if constexpr (!std::is_same_v<std::decay_t<decltype(f)>, std::monostate>) {
            auto collected = f.impl_.Collect();  // empty when the family has no child
            if (!collected.empty()) out = std::move(collected.front());
          }
        },
        metrics);
    out.name = name;
    out.help = help;
    out.type = library_type(type);
    if (std::holds_alternative<std::monostate>(metrics)) collect_callback(out);
    for (auto& m : out.metric) order_labels(m, labels);
    sort_children(out.metric);
    return out;
  }

  void collect_callback(prometheus::MetricFamily& out) {
    std::vector<sample> samples;
    {
      std::lock_guard lock(callback_mutex);
      if (callback) samples = callback();
    }
    out.metric.reserve(samples.size());
    for (auto& s : samples) {
      prometheus::ClientMetric m;
      for (std::size_t i = 0; i < labels.size(); ++i) {
        m.label.push_back({labels[i], i < s.labels.size() ? std::move(s.labels[i]) : std::string()});
      }
      if (type == metric_type::counter) {
        m.counter.value = s.value;
      } else {
        m.gauge.value = s.value;
      }
      out.metric.push_back(std::move(m));
    }
  }
};

metrics_registry::metrics_registry() : registry_(std::make_unique<prometheus::Registry>()) {}
metrics_registry::~metrics_registry() = default;

metrics_registry::entry& metrics_registry::find_or_add(std::string_view name, std::string_view help, metric_type type,
                                                       const std::vector<std::string>& labels) {
  if (!prometheus::CheckMetricName(std::string(name))) {
    throw std::invalid_argument(fmt::format("bad metric name '{}'", name));
  }
  for (const auto& label : labels) {
    if (!prometheus::CheckLabelName(label) || label == "le") {
      throw std::invalid_argument(fmt::format("bad label name '{}' on metric {}", label, name));
    }
  }
  auto it = entries_.find(name);
  if (it != entries_.end()) {
    if (it->second->type != type || it->second->labels != labels) {
      throw std::invalid_argument(fmt::format("metric {} registered twice with different type or labels", name));
    }
    return *it->second;
  }
  auto added = std::make_unique<entry>(help, type, labels);
  return *entries_.emplace(std::string(name), std::move(added)).first->second;
}

family<counter>& metrics_registry::counters(std::string_view name, std::string_view help,
                                            std::vector<std::string> labels) {
  std::lock_guard lock(mutex_);
  entry& e = find_or_add(name, help, metric_type::counter, labels);
  if (e.callback) throw std::invalid_argument(fmt::format("metric {} is a callback metric", name));
  if (!std::holds_alternative<family<counter>>(e.metrics)) {
    auto& impl = prometheus::BuildCounter().Name(std::string(name)).Help(e.help).Register(*registry_);
    e.metrics.emplace<family<counter>>(impl, std::move(labels));
  }
  return std::get<family<counter>>(e.metrics);
}

family<gauge>& metrics_registry::gauges(std::string_view name, std::string_view help, std::vector<std::string> labels) {
  std::lock_guard lock(mutex_);
  entry& e = find_or_add(name, help, metric_type::gauge, labels);
  if (e.callback) throw std::invalid_argument(fmt::format("metric {} is a callback metric", name));
  if (!std::holds_alternative<family<gauge>>(e.metrics)) {
    auto& impl = prometheus::BuildGauge().Name(std::string(name)).Help(e.help).Register(*registry_);
    e.metrics.emplace<family<gauge>>(impl, std::move(labels));
  }
  return std::get<family<gauge>>(e.metrics);
}

family<histogram>& metrics_registry::histograms(std::string_view name, std::string_view help,
                                                std::vector<std::string> labels, std::vector<double> bounds) {
  if (bounds.empty() || !std::is_sorted(bounds.begin(), bounds.end()) ||
      std::adjacent_find(bounds.begin(), bounds.end()) != bounds.end()) {
    throw std::invalid_argument(fmt::format("histogram {} needs strictly ascending bucket bounds", name));
  }
  std::lock_guard lock(mutex_);
  entry& e = find_or_add(name, help, metric_type::histogram, labels);
  if (auto* existing = std::get_if<family<histogram>>(&e.metrics)) return *existing;
  auto& impl = prometheus::BuildHistogram().Name(std::string(name)).Help(e.help).Register(*registry_);
  e.metrics.emplace<family<histogram>>(impl, std::move(labels), std::move(bounds));
  return std::get<family<histogram>>(e.metrics);
}

void metrics_registry::add_callback(std::string_view name, std::string_view help, metric_type type,
                                    std::vector<std::string> labels, sample_callback fn) {
  if (type == metric_type::histogram) throw std::invalid_argument("callback metrics are counters or gauges");
  std::lock_guard lock(mutex_);
  entry& e = find_or_add(name, help, type, labels);
  if (!std::holds_alternative<std::monostate>(e.metrics)) {
    throw std::invalid_argument(fmt::format("metric {} already has recorded values", name));
  }
  std::lock_guard callback_lock(e.callback_mutex);
  e.callback = std::move(fn);
}

std::string metrics_registry::render() const {
  std::vector<prometheus::MetricFamily> families;
  {
    std::lock_guard lock(mutex_);
    families.reserve(entries_.size());
    for (const auto& [name, e] : entries_) families.push_back(e->collect(name));
  }
  return prometheus::TextSerializer().Serialize(families);
}

// ---- the project's shared metrics ----

void register_process_metrics(metrics_registry& registry, std::string_view version) {
  registry.gauges("harness_build_info", "Build of the running server; the value is always 1.", {"version"})
      .with({version})
      .set(1);
  auto now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  registry.gauges("process_start_time_seconds", "Start time of the process since the Unix epoch, in seconds.")
      .with({})
      .set(std::floor(now));
}

family<counter>& task_counter(metrics_registry& registry) {
  return registry.counters("harness_tasks_total", "Agent tasks that reached a final status, by that status.",
                           {"status"});
}

}  // namespace harness::core
