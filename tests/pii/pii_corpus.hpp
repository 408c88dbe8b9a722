// A labelled PII corpus generated deterministically by code: real-looking
// values of every kind in many formats inside sentence, log and JSON-ish
// templates, and look-alikes that must not match (order numbers, timestamps,
// version strings, UUIDs, prices, ISBNs, Luhn-failing card numbers, dates, hex
// ids, invalid SSNs and addresses). Shared by the quality test, the report
// tool and the benchmark.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace harness::pii::corpus {

struct label {
  std::string kind;  // detector name: "email", "phone", "ssn", "card", "ipv4", "ipv6"
  std::size_t start = 0;
  std::size_t end = 0;
};

struct sample {
  std::string text;
  std::vector<label> labels;  // empty for a look-alike-only sample
};

// `count` samples from `seed`; the same arguments always give the same corpus.
std::vector<sample> generate(std::size_t count, std::uint64_t seed);

// Mixed text of at least `bytes` bytes: prose lines without PII interleaved
// with corpus samples (about one line in three carries PII or a look-alike).
std::string mixed_text(std::size_t bytes, std::uint64_t seed);

struct score {
  std::size_t true_positives = 0, false_positives = 0, false_negatives = 0;
  double precision() const;
  double recall() const;
};

// Per-kind precision/recall of `detect` on `samples`; a detection counts only
// when kind, start and end all equal a label's.
template <class Detect>
std::map<std::string, score> evaluate(const std::vector<sample>& samples, Detect&& detect);

// Markdown table of the scores (kind | TP | FP | FN | precision | recall).
std::string markdown_table(const std::map<std::string, score>& scores);

template <class Detect>
std::map<std::string, score> evaluate(const std::vector<sample>& samples, Detect&& detect) {
  std::map<std::string, score> scores;
  for (const auto& s : samples) {
    auto found = detect(s.text);  // vector of {kind, start, end}
    std::vector<bool> used(s.labels.size(), false);
    for (const auto& d : found) {
      if (d.kind == "token") continue;
      bool hit = false;
      for (std::size_t i = 0; i < s.labels.size(); ++i) {
        const auto& l = s.labels[i];
        if (!used[i] && l.kind == d.kind && l.start == d.start && l.end == d.end) {
          used[i] = hit = true;
          break;
        }
      }
      ++(hit ? scores[d.kind].true_positives : scores[d.kind].false_positives);
    }
    for (std::size_t i = 0; i < s.labels.size(); ++i)
      if (!used[i]) ++scores[s.labels[i].kind].false_negatives;
  }
  return scores;
}

}  // namespace harness::pii::corpus
