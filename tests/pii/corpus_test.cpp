#include <gtest/gtest.h>

#include "harness/pii/pii_censor.hpp"
#include "pii/pii_corpus.hpp"

namespace harness::pii {
namespace {

TEST(PiiCorpus, GenerationIsDeterministic) {
  auto a = corpus::generate(200, 7), b = corpus::generate(200, 7);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].text, b[i].text);
  EXPECT_NE(corpus::generate(1, 8)[0].text + corpus::generate(1, 9)[0].text, a[0].text + a[0].text);
}

TEST(PiiCorpus, PrecisionAndRecallMeetTheTargetsPerKind) {
  auto censor = pii_censor_builder().build();
  ASSERT_TRUE(censor);
  auto samples = corpus::generate(30000, 2024);
  auto scores = corpus::evaluate(samples, [&](std::string_view t) { return censor->detect(t); });
  std::cout << corpus::markdown_table(scores);
  ASSERT_EQ(scores.size(), 6u);
  for (const auto& [kind, s] : scores) {
    EXPECT_GT(s.true_positives, 1000u) << kind;
    EXPECT_GE(s.precision(), 0.99) << kind;
    EXPECT_GE(s.recall(), 0.98) << kind;
  }
}

TEST(PiiCorpus, SwitchedOffKindsAreNotFound) {
  pii_censor_builder b;
  ASSERT_TRUE(b.enable("card", false));
  auto censor = b.build();
  ASSERT_TRUE(censor);
  auto scores = corpus::evaluate(corpus::generate(3000, 5), [&](std::string_view t) { return censor->detect(t); });
  EXPECT_EQ(scores["card"].true_positives, 0u);
  EXPECT_GT(scores["card"].false_negatives, 0u);
}

}  // namespace
}  // namespace harness::pii
