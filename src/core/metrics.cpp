#include "harness/core/metrics.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <variant>

#include <fmt/format.h>

namespace harness::core {
namespace {

// Separates label values inside a child's key; cannot clash with a value's
// text in practice, and a clash would only merge two series.
constexpr char key_separator = '\x1f';

bool valid_name(std::string_view name, bool allow_colon) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (allow_colon && c == ':') ||
              (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

void append_escaped(std::string& out, std::string_view text, bool quote) {
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out.push_back(c);
    }
  }
}

void append_number(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
  } else if (std::isinf(v)) {
    out += v > 0 ? "+Inf" : "-Inf";
  } else {
    fmt::format_to(std::back_inserter(out), "{}", v);
  }
}

// {a="x",b="y"} with an optional extra pair (le for buckets); nothing when there are no labels.
void append_labels(std::string& out, const std::vector<std::string>& names, const std::vector<std::string>& values,
                   std::string_view extra_name = {}, std::string_view extra_value = {}) {
  if (names.empty() && extra_name.empty()) return;
  out.push_back('{');
  bool first = true;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!first) out.push_back(',');
    first = false;
    out += names[i];
    out += "=\"";
    append_escaped(out, i < values.size() ? std::string_view(values[i]) : std::string_view(), true);
    out.push_back('"');
  }
  if (!extra_name.empty()) {
    if (!first) out.push_back(',');
    out += extra_name;
    out += "=\"";
    out += extra_value;
    out.push_back('"');
  }
  out.push_back('}');
}

void append_sample(std::string& out, std::string_view name, const std::vector<std::string>& label_names,
                   const std::vector<std::string>& values, double value) {
  out += name;
  append_labels(out, label_names, values);
  out.push_back(' ');
  append_number(out, value);
  out.push_back('\n');
}

// Integer counts are written exactly (a double would round past 2^53).
void append_sample(std::string& out, std::string_view name, const std::vector<std::string>& label_names,
                   const std::vector<std::string>& values, std::uint64_t value) {
  out += name;
  append_labels(out, label_names, values);
  out.push_back(' ');
  out += std::to_string(value);
  out.push_back('\n');
}

std::string_view type_name(metric_type type) {
  switch (type) {
    case metric_type::counter:
      return "counter";
    case metric_type::gauge:
      return "gauge";
    case metric_type::histogram:
      return "histogram";
  }
  return "untyped";
}

}  // namespace

// ---- histogram ----

histogram::histogram(const std::vector<double>& bounds)
    : bounds_(bounds), counts_(std::make_unique<std::atomic<std::uint64_t>[]>(bounds.size() + 1)) {}

void histogram::observe(double v) noexcept {
  // Buckets are few (about a dozen): a linear scan beats a binary search.
  std::size_t i = 0;
  while (i < bounds_.size() && v > bounds_[i]) ++i;
  counts_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

histogram::snapshot histogram::read() const {
  snapshot s;
  s.cumulative.resize(bounds_.size() + 1);
  std::uint64_t running = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    running += counts_[i].load(std::memory_order_relaxed);
    s.cumulative[i] = running;
  }
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

const std::vector<double>& default_latency_buckets() {
  static const std::vector<double> buckets{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                           0.1,    0.25,  0.5,    1,     2.5,  5,     10};
  return buckets;
}

// ---- family ----

template <class Metric>
std::unique_ptr<typename family<Metric>::child> family<Metric>::make_child(
    std::initializer_list<std::string_view> values) const {
  std::vector<std::string> kept;
  kept.reserve(label_names_.size());
  auto it = values.begin();
  for (std::size_t i = 0; i < label_names_.size(); ++i, it = it == values.end() ? it : std::next(it)) {
    kept.emplace_back(it == values.end() ? std::string_view() : *it);
  }
  if constexpr (std::is_same_v<Metric, histogram>) {
    return std::unique_ptr<child>(new child{std::move(kept), histogram(bounds_)});
  } else {
    return std::unique_ptr<child>(new child{std::move(kept), {}});
  }
}

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
    if (found != children_.end()) return found->second->metric;
  }
  std::unique_lock lock(mutex_);
  auto found = children_.find(key);
  if (found != children_.end()) return found->second->metric;
  auto inserted = children_.emplace(std::string(key), make_child(values));
  return inserted.first->second->metric;
}

template <class Metric>
void family<Metric>::for_each(const std::function<void(const std::vector<std::string>&, const Metric&)>& fn) const {
  std::vector<const child*> sorted;
  {
    std::shared_lock lock(mutex_);
    sorted.reserve(children_.size());
    for (const auto& [key, c] : children_) sorted.push_back(c.get());
  }
  // Children are never removed, so the pointers outlive the lock.
  std::sort(sorted.begin(), sorted.end(), [](const child* a, const child* b) { return a->values < b->values; });
  for (const child* c : sorted) fn(c->values, c->metric);
}

template class family<counter>;
template class family<gauge>;
template class family<histogram>;

// ---- registry ----

struct metrics_registry::entry {
  std::string help;
  metric_type type;
  std::vector<std::string> labels;
  std::variant<std::monostate, family<counter>, family<gauge>, family<histogram>> metrics;
  sample_callback callback;  // set for callback metrics
  std::mutex callback_mutex;

  entry(std::string_view h, metric_type t, std::vector<std::string> l) : help(h), type(t), labels(std::move(l)) {}
};

metrics_registry::metrics_registry() = default;
metrics_registry::~metrics_registry() = default;

metrics_registry::entry& metrics_registry::find_or_add(std::string_view name, std::string_view help, metric_type type,
                                                       const std::vector<std::string>& labels) {
  if (!valid_name(name, /*allow_colon=*/true)) throw std::invalid_argument(fmt::format("bad metric name '{}'", name));
  for (const auto& label : labels) {
    if (!valid_name(label, false) || label.starts_with("__") || label == "le") {
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
  if (!std::holds_alternative<family<counter>>(e.metrics)) e.metrics.emplace<family<counter>>(std::move(labels));
  return std::get<family<counter>>(e.metrics);
}

family<gauge>& metrics_registry::gauges(std::string_view name, std::string_view help, std::vector<std::string> labels) {
  std::lock_guard lock(mutex_);
  entry& e = find_or_add(name, help, metric_type::gauge, labels);
  if (e.callback) throw std::invalid_argument(fmt::format("metric {} is a callback metric", name));
  if (!std::holds_alternative<family<gauge>>(e.metrics)) e.metrics.emplace<family<gauge>>(std::move(labels));
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
  e.metrics.emplace<family<histogram>>(std::move(labels), std::move(bounds));
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
  std::string out;
  std::lock_guard lock(mutex_);
  for (const auto& [name, e] : entries_) {
    out += "# HELP ";
    out += name;
    out.push_back(' ');
    append_escaped(out, e->help, false);
    out += "\n# TYPE ";
    out += name;
    out.push_back(' ');
    out += type_name(e->type);
    out.push_back('\n');
    if (const auto* c = std::get_if<family<counter>>(&e->metrics)) {
      c->for_each([&](const std::vector<std::string>& values, const counter& m) {
        append_sample(out, name, e->labels, values, m.value());
      });
    } else if (const auto* g = std::get_if<family<gauge>>(&e->metrics)) {
      g->for_each([&](const std::vector<std::string>& values, const gauge& m) {
        append_sample(out, name, e->labels, values, m.value());
      });
    } else if (const auto* h = std::get_if<family<histogram>>(&e->metrics)) {
      h->for_each([&](const std::vector<std::string>& values, const histogram& m) {
        auto snap = m.read();
        const auto& bounds = m.bounds();
        for (std::size_t i = 0; i <= bounds.size(); ++i) {
          std::string le;
          if (i < bounds.size()) {
            append_number(le, bounds[i]);
          } else {
            le = "+Inf";
          }
          out += name;
          out += "_bucket";
          append_labels(out, e->labels, values, "le", le);
          out.push_back(' ');
          out += std::to_string(snap.cumulative[i]);
          out.push_back('\n');
        }
        append_sample(out, name + "_sum", e->labels, values, snap.sum);
        append_sample(out, name + "_count", e->labels, values, snap.cumulative.back());
      });
    } else {
      std::vector<sample> samples;
      {
        std::lock_guard callback_lock(e->callback_mutex);
        if (e->callback) samples = e->callback();
      }
      std::sort(samples.begin(), samples.end(), [](const sample& a, const sample& b) { return a.labels < b.labels; });
      for (const auto& s : samples) append_sample(out, name, e->labels, s.labels, s.value);
    }
  }
  return out;
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
