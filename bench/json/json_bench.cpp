// What the depth limit costs: core::parse_json and the strict body parser
// beside nlohmann::json::parse (no limit) of the same text, on the two shapes
// the hot paths parse: a sandbox's call frame (~250 bytes, every tool call)
// and a tool's result of 1,000 rows (~85 KB).
//   build/bench/json/json_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <string>

#include "harness/core/json_parse.hpp"
#include "strict_json.hpp"

namespace {

std::string call_frame() {
  return R"({"type":"call","id":4711,"exec":"x12","op":"call_tool","name":"everything__echo",)"
         R"("args":{"message":"write to [EMAIL_1] about order 42","meta":{"tags":["a","b"],"n":3}}})";
}

std::string rows_result() {
  std::string out = R"({"content":[{"type":"text","text":"ok"}],"structuredContent":{"rows":[)";
  for (int i = 0; i < 1000; ++i) {
    if (i) out += ',';
    out += R"({"id":)" + std::to_string(i) + R"(,"customer":"Customer )" + std::to_string(i % 40) +
           R"(","email":"[EMAIL_)" + std::to_string(i % 40) + R"(]","region":"north","amount":)" +
           std::to_string(i * 7 % 500) + ".25}";
  }
  return out + "]}}";
}

template <class Parse>
void run(benchmark::State& state, const std::string& text, Parse parse) {
  for (auto _ : state) {
    auto value = parse(text);
    benchmark::DoNotOptimize(value);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

void BM_nlohmann_frame(benchmark::State& s) {
  run(s, call_frame(), [](const std::string& t) { return nlohmann::json::parse(t, nullptr, false); });
}
void BM_parse_json_frame(benchmark::State& s) {
  run(s, call_frame(), [](const std::string& t) { return harness::core::parse_json(t); });
}
void BM_nlohmann_rows(benchmark::State& s) {
  run(s, rows_result(), [](const std::string& t) { return nlohmann::json::parse(t, nullptr, false); });
}
void BM_parse_json_rows(benchmark::State& s) {
  run(s, rows_result(), [](const std::string& t) { return harness::core::parse_json(t); });
}
void BM_strict_rows(benchmark::State& s) {
  run(s, rows_result(), [](const std::string& t) { return harness::http::parse_strict_json(t); });
}

BENCHMARK(BM_nlohmann_frame);
BENCHMARK(BM_parse_json_frame);
BENCHMARK(BM_nlohmann_rows);
BENCHMARK(BM_parse_json_rows);
BENCHMARK(BM_strict_rows);

}  // namespace

BENCHMARK_MAIN();
