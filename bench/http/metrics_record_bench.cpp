// Cost of recording one HTTP request in the metrics registry. BM_record_request
// looks both children up by label values each time (a counter by method,
// route and status, a latency histogram by method and route), as the server
// did until 2026-12-01; BM_request_metrics_record is what a connection does
// now (http::request_metrics::record, which keeps the children it has seen).
// Compare with the time one /health request takes (1 / req/s of
// bench/health_bench.sh) to see the share.
//   g++ -std=c++20 -O2 -DNDEBUG -Iinclude bench/http/metrics_record_bench.cpp \
//     build/src/http/libharness_http.a build/src/core/libharness_core.a -lprometheus-cpp-core -lfmt \
//     -lbenchmark -pthread -o build/bench/http/metrics_record_bench
#include <benchmark/benchmark.h>

#include "harness/core/metrics.hpp"
#include "harness/http/api.hpp"

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

// The server's path: one request_metrics per connection (so per thread here).
void BM_request_metrics_record(benchmark::State& state) {
  static harness::core::metrics_registry registry;
  harness::http::request_metrics metrics(registry);
  double seconds = 0.0001;
  for (auto _ : state) {
    metrics.record("GET", "/health", 200, seconds);
    benchmark::DoNotOptimize(seconds);
  }
}
BENCHMARK(BM_request_metrics_record);
BENCHMARK(BM_request_metrics_record)->Threads(4);

}  // namespace

BENCHMARK_MAIN();
