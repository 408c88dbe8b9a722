// Cost of recording one HTTP request in the metrics registry, as the server
// does it (request_metrics::record: a counter child by method, route and
// status, and a latency histogram child by method and route, both looked up
// by label values), beside an empty loop. Compare with the time one /health
// request takes (1 / req/s of bench/health_bench.sh) to see the share.
//   g++ -std=c++20 -O2 -DNDEBUG -Iinclude bench/http/metrics_record_bench.cpp \
//     build/src/core/libharness_core.a -lprometheus-cpp-core -lfmt -lbenchmark -pthread \
//     -o build/bench/http/metrics_record_bench
#include <benchmark/benchmark.h>

#include "harness/core/metrics.hpp"

namespace {

void BM_record_request(benchmark::State& state) {
  harness::core::metrics_registry registry;
  auto& requests = registry.counters("harness_http_requests_total", "HTTP requests.", {"method", "route", "status"});
  auto& duration = registry.histograms("harness_http_request_duration_seconds", "Latency.", {"method", "route"});
  double seconds = 0.0001;
  for (auto _ : state) {
    requests.with({"GET", "/health", "200"}).inc();
    duration.with({"GET", "/health"}).observe(seconds);
    benchmark::DoNotOptimize(seconds);
  }
}
BENCHMARK(BM_record_request);

void BM_record_request_4_threads(benchmark::State& state) {
  static harness::core::metrics_registry registry;
  auto& requests = registry.counters("harness_http_requests_total", "HTTP requests.", {"method", "route", "status"});
  auto& duration = registry.histograms("harness_http_request_duration_seconds", "Latency.", {"method", "route"});
  for (auto _ : state) {
    requests.with({"GET", "/health", "200"}).inc();
    duration.with({"GET", "/health"}).observe(0.0001);
  }
}
BENCHMARK(BM_record_request_4_threads)->Threads(4);

}  // namespace

BENCHMARK_MAIN();
