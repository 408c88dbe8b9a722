// Prints the per-kind precision/recall table of the built-in detectors on the
// generated corpus (the table in docs/benchmarks/pii.md).
// Usage: pii_corpus_report [samples] [seed]
#include <cstdlib>
#include <iostream>

#include "harness/pii/pii_censor.hpp"
#include "pii/pii_corpus.hpp"

int main(int argc, char** argv) {
  std::size_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 30000;
  std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2024;
  auto censor = harness::pii::pii_censor_builder().build();
  if (!censor) {
    std::cerr << censor.error().describe() << "\n";
    return 1;
  }
  auto samples = harness::pii::corpus::generate(count, seed);
  auto scores = harness::pii::corpus::evaluate(samples, [&](std::string_view t) { return censor->detect(t); });
  std::cout << "corpus: " << count << " samples, seed " << seed << "\n\n"
            << harness::pii::corpus::markdown_table(scores);
  return 0;
}
