// Throughput of the PII censor on 32 MiB of mixed text with PII, beside a bare
// RE2::Set::Match scan of the same bytes with the same patterns, in one run.
//
//   cmake --build build --target pii_bench && build/bench/pii/pii_bench
//
// The ratio that matters is tokenize / bare_set_match (target >= 60%), and
// tokenize alone (target >= 200 MB/s on one core).
#include <benchmark/benchmark.h>

#include <re2/set.h>

#include "builtin_detectors.hpp"
#include "harness/pii/pii_censor.hpp"
#include "pii/pii_corpus.hpp"
#include "pii_engine.hpp"

namespace {

using namespace harness::pii;

constexpr std::size_t text_bytes = 32u << 20;

const std::string& mixed() {
  static const std::string text = corpus::mixed_text(text_bytes, 42);
  return text;
}

// The same text without its PII lines: what most tool output looks like.
const std::string& clean() {
  static const std::string text = [] {
    std::string out;
    auto censor = pii_censor_builder().build();
    const std::string& m = mixed();
    std::size_t pos = 0;
    while (pos < m.size()) {
      auto nl = m.find('\n', pos);
      std::string_view line(m.data() + pos, nl - pos + 1);
      if (censor->detect(line).empty()) out.append(line);
      pos = nl + 1;
    }
    while (out.size() < text_bytes) out += out.substr(0, text_bytes - out.size());
    return out;
  }();
  return text;
}

const pii_censor& censor() {
  static const pii_censor c = std::move(*pii_censor_builder().build());
  return c;
}

void bare_set_match(benchmark::State& state, const std::string& text) {
  // The same options as the censor's engine: the built-in patterns are all
  // byte-safe, so both compile in Latin-1 mode.
  RE2::Set set(detail::pii_re2_options(/*bytes=*/true), RE2::UNANCHORED);
  set.Add(detail::token_shaped_pattern, nullptr);
  for (const auto& d : detail::builtin_detectors()) set.Add(d.pattern, nullptr);
  if (!set.Compile()) state.SkipWithError("RE2::Set did not compile");
  std::vector<int> hits;
  for (auto _ : state) {
    hits.clear();
    benchmark::DoNotOptimize(set.Match(text, &hits));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
  state.counters["kinds_hit"] = static_cast<double>(hits.size());
}

void tokenize(benchmark::State& state, const std::string& text) {
  std::size_t detections = 0;
  for (auto _ : state) {
    pii_vault vault;  // a fresh task each time
    std::string out = censor().tokenize(text, vault);
    benchmark::DoNotOptimize(out.data());
    detections = vault.size();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
  state.counters["distinct_values"] = static_cast<double>(detections);
}

// The same with one output buffer reused across calls, as a worker would keep.
void tokenize_into(benchmark::State& state, const std::string& text) {
  std::string out;
  for (auto _ : state) {
    pii_vault vault;
    out.clear();
    censor().tokenize_into(out, text, vault);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}

void detect(benchmark::State& state, const std::string& text) {
  std::size_t n = 0;
  for (auto _ : state) {
    auto found = censor().detect(text);
    n = found.size();
    benchmark::DoNotOptimize(found.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
  state.counters["detections_per_MiB"] = static_cast<double>(n) / (static_cast<double>(text.size()) / (1 << 20));
}

void BM_bare_set_match_mixed(benchmark::State& s) {
  bare_set_match(s, mixed());
}
void BM_tokenize_mixed(benchmark::State& s) {
  tokenize(s, mixed());
}
void BM_tokenize_into_mixed(benchmark::State& s) {
  tokenize_into(s, mixed());
}
void BM_detect_mixed(benchmark::State& s) {
  detect(s, mixed());
}
void BM_bare_set_match_clean(benchmark::State& s) {
  bare_set_match(s, clean());
}
void BM_tokenize_clean(benchmark::State& s) {
  tokenize(s, clean());
}
void BM_tokenize_into_clean(benchmark::State& s) {
  tokenize_into(s, clean());
}

BENCHMARK(BM_bare_set_match_mixed)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_tokenize_mixed)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_tokenize_into_mixed)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_detect_mixed)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_bare_set_match_clean)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_tokenize_clean)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_tokenize_into_clean)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
