// Recording into a child that exists allocates nothing (the HTTP server
// records every request it answers). Its own binary: it replaces the global
// operator new to count allocations.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "harness/core/metrics.hpp"

namespace {
std::atomic<long> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace harness::core {
namespace {

TEST(MetricsAllocation, RecordingAnExistingChildDoesNotAllocate) {
  metrics_registry registry;
  auto& requests = registry.counters("r_total", "R.", {"method", "route", "status"});
  auto& latency = registry.histograms("l_seconds", "L.", {"method", "route"});
  auto& open = registry.gauges("g", "G.", {"kind"});
  requests.with({"GET", "/health", "200"}).inc();
  latency.with({"GET", "/health"}).observe(0.001);
  open.with({"x"}).set(1);

  const long before = allocations.load();
  for (int i = 0; i < 1000; ++i) {
    requests.with({"GET", "/health", "200"}).inc();
    latency.with({"GET", "/health"}).observe(0.001 * i);
    open.with({"x"}).add(1);
  }
  EXPECT_EQ(allocations.load() - before, 0);

  // A new combination does allocate: the counting works.
  requests.with({"GET", "/health", "503"}).inc();
  EXPECT_GT(allocations.load() - before, 0);
}

}  // namespace
}  // namespace harness::core
