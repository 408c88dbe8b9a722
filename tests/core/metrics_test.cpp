#include "harness/core/metrics.hpp"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace harness::core {
namespace {

// A strict parser of the text exposition format 0.0.4, enough to read back
// what render() writes: HELP/TYPE comments, samples with escaped label values.
struct parsed_sample {
  std::string name;
  std::map<std::string, std::string> labels;
  std::string value;
};
struct parsed_exposition {
  std::map<std::string, std::string> help;
  std::map<std::string, std::string> type;
  std::vector<parsed_sample> samples;

  const parsed_sample* find(const std::string& name, const std::map<std::string, std::string>& labels) const {
    for (const auto& s : samples) {
      if (s.name == name && s.labels == labels) return &s;
    }
    return nullptr;
  }
};

std::string unescape(std::string_view text, bool quote) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out.push_back(text[i]);
      continue;
    }
    if (++i == text.size()) throw std::runtime_error("dangling backslash");
    char c = text[i];
    if (c == 'n') {
      out.push_back('\n');
    } else if (c == '\\' || (quote && c == '"')) {
      out.push_back(c);
    } else {
      throw std::runtime_error(std::string("bad escape \\") + c);
    }
  }
  return out;
}

parsed_sample parse_sample(const std::string& line) {
  parsed_sample s;
  std::size_t i = 0;
  while (i < line.size() && line[i] != '{' && line[i] != ' ') s.name.push_back(line[i++]);
  if (i < line.size() && line[i] == '{') {
    ++i;
    while (line.at(i) != '}') {
      std::string key;
      while (line.at(i) != '=') key.push_back(line[i++]);
      if (line.at(++i) != '"') throw std::runtime_error("label value not quoted: " + line);
      ++i;
      std::string raw;
      while (line.at(i) != '"') {
        if (line[i] == '\\') raw.push_back(line[i++]);
        raw.push_back(line.at(i++));
      }
      ++i;
      if (s.labels.count(key)) throw std::runtime_error("label twice: " + line);
      s.labels[key] = unescape(raw, true);
      if (line.at(i) == ',') ++i;
    }
    ++i;
  }
  if (line.at(i) != ' ') throw std::runtime_error("no space before value: " + line);
  s.value = line.substr(i + 1);
  if (s.value.empty() || s.value.find(' ') != std::string::npos) throw std::runtime_error("bad value: " + line);
  if (s.value != "+Inf" && s.value != "-Inf" && s.value != "NaN") {
    std::size_t used = 0;
    std::stod(s.value, &used);
    if (used != s.value.size()) throw std::runtime_error("bad number: " + line);
  }
  return s;
}

parsed_exposition parse(const std::string& text) {
  parsed_exposition out;
  if (!text.empty() && text.back() != '\n') throw std::runtime_error("output must end with a newline");
  std::istringstream in(text);
  std::string line;
  std::string current;  // the family the last TYPE line announced
  while (std::getline(in, line)) {
    if (line.rfind("# HELP ", 0) == 0) {
      auto space = line.find(' ', 7);
      out.help[line.substr(7, space - 7)] = unescape(line.substr(space + 1), false);
    } else if (line.rfind("# TYPE ", 0) == 0) {
      auto space = line.find(' ', 7);
      current = line.substr(7, space - 7);
      if (out.type.count(current)) throw std::runtime_error("TYPE twice for " + current);
      out.type[current] = line.substr(space + 1);
    } else {
      auto s = parse_sample(line);
      // Every sample belongs to the family announced just before it.
      bool ok = s.name == current || s.name == current + "_bucket" || s.name == current + "_sum" ||
                s.name == current + "_count";
      if (!ok) throw std::runtime_error("sample " + s.name + " outside its family " + current);
      out.samples.push_back(std::move(s));
    }
  }
  return out;
}

TEST(Metrics, CountersAndGaugesRenderWithHelpTypeAndSortedLabels) {
  metrics_registry registry;
  auto& requests = registry.counters("harness_http_requests_total", "HTTP requests.", {"method", "route", "status"});
  requests.with({"GET", "/health", "200"}).inc();
  requests.with({"GET", "/health", "200"}).inc(2);
  requests.with({"POST", "/execute", "400"}).inc();
  registry.gauges("harness_sandbox_pool_ready", "Ready sandboxes.").with({}).set(3);

  auto text = registry.render();
  auto parsed = parse(text);
  EXPECT_EQ(parsed.type["harness_http_requests_total"], "counter");
  EXPECT_EQ(parsed.help["harness_http_requests_total"], "HTTP requests.");
  EXPECT_EQ(parsed.type["harness_sandbox_pool_ready"], "gauge");
  auto* health =
      parsed.find("harness_http_requests_total", {{"method", "GET"}, {"route", "/health"}, {"status", "200"}});
  ASSERT_NE(health, nullptr) << text;
  EXPECT_EQ(health->value, "3");
  auto* execute =
      parsed.find("harness_http_requests_total", {{"method", "POST"}, {"route", "/execute"}, {"status", "400"}});
  ASSERT_NE(execute, nullptr);
  EXPECT_EQ(execute->value, "1");
  auto* ready = parsed.find("harness_sandbox_pool_ready", {});
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->value, "3");
  // Families sorted by name; GET before POST within a family.
  EXPECT_LT(text.find("harness_http_requests_total{method=\"GET\""), text.find("method=\"POST\""));
  EXPECT_LT(text.find("# TYPE harness_http_requests_total"), text.find("# TYPE harness_sandbox_pool_ready"));
}

TEST(Metrics, LabelValuesAndHelpAreEscaped) {
  metrics_registry registry;
  registry.counters("x_total", "line one\nback\\slash \"quotes\" stay", {"v"}).with({"a\"quoted\"\\path\nnext"}).inc();
  auto text = registry.render();
  EXPECT_NE(text.find(R"(x_total{v="a\"quoted\"\\path\nnext"} 1)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(# HELP x_total line one\nback\\slash "quotes" stay)"), std::string::npos) << text;
  auto parsed = parse(text);
  EXPECT_EQ(parsed.help["x_total"], "line one\nback\\slash \"quotes\" stay");
  ASSERT_NE(parsed.find("x_total", {{"v", "a\"quoted\"\\path\nnext"}}), nullptr);
}

TEST(Metrics, HistogramHasCumulativeBucketsInfSumAndCount) {
  metrics_registry registry;
  auto& latency = registry.histograms("req_seconds", "Latency.", {"route"}, {0.01, 0.1, 1});
  auto& h = latency.with({"/x"});
  h.observe(0.005);  // <= 0.01
  h.observe(0.01);   // le is inclusive
  h.observe(0.5);    // <= 1
  h.observe(7);      // +Inf only
  auto parsed = parse(registry.render());
  EXPECT_EQ(parsed.type["req_seconds"], "histogram");
  auto bucket = [&](const std::string& le) {
    auto* s = parsed.find("req_seconds_bucket", {{"route", "/x"}, {"le", le}});
    return s ? s->value : "missing";
  };
  EXPECT_EQ(bucket("0.01"), "2");
  EXPECT_EQ(bucket("0.1"), "2");
  EXPECT_EQ(bucket("1"), "3");
  EXPECT_EQ(bucket("+Inf"), "4");
  auto* count = parsed.find("req_seconds_count", {{"route", "/x"}});
  ASSERT_NE(count, nullptr);
  EXPECT_EQ(count->value, "4");
  auto* sum = parsed.find("req_seconds_sum", {{"route", "/x"}});
  ASSERT_NE(sum, nullptr);
  EXPECT_DOUBLE_EQ(std::stod(sum->value), 7.515);
}

// What the registry keeps on top of prometheus-cpp: a family is listed before
// its first child, an untouched child is a zero series, and labels come out in
// the order the family declared them (the library sorts them by name).
TEST(Metrics, EmptyFamiliesZeroSeriesAndDeclaredLabelOrder) {
  metrics_registry registry;
  registry.counters("empty_total", "Nothing yet.", {"kind"});
  registry.histograms("empty_seconds", "No observation yet.", {"route"}, {0.1});
  auto& zero = registry.counters("zero_total", "Zero.", {"zeta", "alpha"});
  zero.with({"z2", "a1"});
  zero.with({"z1", "a2"});
  auto& latency = registry.histograms("order_seconds", "Order.", {"route", "method"}, {0.1});
  latency.with({"/x", "GET"}).observe(0.05);
  registry.add_callback("cb_total", "Callback.", metric_type::counter, {"zeta", "alpha"}, [] {
    return std::vector<sample>{{{"z", "a"}, 1}};
  });

  auto text = registry.render();
  auto parsed = parse(text);
  EXPECT_NE(text.find("# HELP empty_total Nothing yet.\n# TYPE empty_total counter\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE empty_seconds histogram\n"), std::string::npos) << text;
  EXPECT_NE(text.find("zero_total{zeta=\"z1\",alpha=\"a2\"} 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("zero_total{zeta=\"z2\",alpha=\"a1\"} 0\n"), std::string::npos) << text;
  EXPECT_LT(text.find("zeta=\"z1\""), text.find("zeta=\"z2\"")) << "children sorted by the first label's value";
  EXPECT_NE(text.find("order_seconds_bucket{route=\"/x\",method=\"GET\",le=\"0.1\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("order_seconds_bucket{route=\"/x\",method=\"GET\",le=\"+Inf\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("cb_total{zeta=\"z\",alpha=\"a\"} 1\n"), std::string::npos) << text;
}

TEST(Metrics, CallbackMetricsAreEvaluatedAtEachScrape) {
  metrics_registry registry;
  int ready = 1;
  registry.add_callback("pool_ready", "Ready.", metric_type::gauge, {}, [&] {
    return std::vector<sample>{{{}, double(ready)}};
  });
  registry.add_callback("claims_total", "Claims.", metric_type::counter, {"kind"}, [&] {
    return std::vector<sample>{{{"warm"}, 5}, {{"cold"}, 2}};
  });
  EXPECT_EQ(parse(registry.render()).find("pool_ready", {})->value, "1");
  ready = 4;
  auto parsed = parse(registry.render());
  EXPECT_EQ(parsed.find("pool_ready", {})->value, "4");
  EXPECT_EQ(parsed.type["claims_total"], "counter");
  EXPECT_EQ(parsed.find("claims_total", {{"kind", "warm"}})->value, "5");
  EXPECT_EQ(parsed.find("claims_total", {{"kind", "cold"}})->value, "2");
}

TEST(Metrics, SameNameReturnsSameFamilyAndClashesThrow) {
  metrics_registry registry;
  auto& a = registry.counters("c_total", "C.", {"x"});
  auto& b = registry.counters("c_total", "C.", {"x"});
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(&a.with({"1"}), &b.with({"1"}));
  EXPECT_THROW(registry.gauges("c_total", "C.", {"x"}), std::invalid_argument);
  EXPECT_THROW(registry.counters("c_total", "C.", {"y"}), std::invalid_argument);
  EXPECT_THROW(registry.counters("bad-name", "B."), std::invalid_argument);
  EXPECT_THROW(registry.counters("ok_total", "B.", {"le"}), std::invalid_argument);
  EXPECT_THROW(registry.histograms("h", "H.", {}, {1, 0.5}), std::invalid_argument);
  EXPECT_THROW(
      registry.add_callback("c_total", "C.", metric_type::counter, {"x"}, [] { return std::vector<sample>{}; }),
      std::invalid_argument);
}

TEST(Metrics, ProcessAndTaskMetrics) {
  metrics_registry registry;
  register_process_metrics(registry, "1.2.3");
  task_counter(registry).with({"completed"}).inc();
  auto parsed = parse(registry.render());
  EXPECT_EQ(parsed.find("harness_build_info", {{"version", "1.2.3"}})->value, "1");
  EXPECT_GT(std::stod(parsed.find("process_start_time_seconds", {})->value), 1.6e9);
  EXPECT_EQ(parsed.find("harness_tasks_total", {{"status", "completed"}})->value, "1");
}

TEST(Metrics, ConcurrentRecordingLosesNothing) {
  metrics_registry registry;
  auto& requests = registry.counters("r_total", "R.", {"route", "status"});
  auto& latency = registry.histograms("l_seconds", "L.", {"route"}, {0.5, 1});
  constexpr int threads = 4;
  constexpr int per_thread = 20000;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      const std::string route = "/r" + std::to_string(t % 2);
      for (int i = 0; i < per_thread; ++i) {
        // New children are created while others record and render.
        requests.with({route, std::to_string(i % 3)}).inc();
        latency.with({route}).observe(i % 2 ? 0.25 : 0.75);
        if (i % 5000 == 0) parse(registry.render());
      }
    });
  }
  for (auto& w : workers) w.join();
  auto parsed = parse(registry.render());
  std::uint64_t total = 0;
  for (const auto& s : parsed.samples) {
    if (s.name == "r_total") total += std::stoull(s.value);
  }
  EXPECT_EQ(total, std::uint64_t{threads} * per_thread);
  EXPECT_EQ(parsed.find("l_seconds_count", {{"route", "/r0"}})->value, std::to_string(2 * per_thread));
  EXPECT_EQ(parsed.find("l_seconds_bucket", {{"route", "/r1"}, {"le", "0.5"}})->value, std::to_string(per_thread));
  EXPECT_DOUBLE_EQ(std::stod(parsed.find("l_seconds_sum", {{"route", "/r0"}})->value), 2 * per_thread * 0.5);
}

TEST(Metrics, LongLabelValuesAreKeptWhole) {
  metrics_registry registry;
  std::string long_value(1000, 'v');
  auto& f = registry.counters("long_total", "L.", {"a", "b"});
  f.with({long_value, "x"}).inc();
  f.with({long_value, "x"}).inc();
  f.with({long_value, "y"}).inc();
  auto parsed = parse(registry.render());
  EXPECT_EQ(parsed.find("long_total", {{"a", long_value}, {"b", "x"}})->value, "2");
  EXPECT_EQ(parsed.find("long_total", {{"a", long_value}, {"b", "y"}})->value, "1");
}

}  // namespace
}  // namespace harness::core
