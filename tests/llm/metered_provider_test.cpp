// create_metered_provider counts calls by outcome, tokens by direction, and
// times each call, around any provider.
#include <gtest/gtest.h>

#include <deque>

#include "harness/core/metrics.hpp"
#include "harness/llm/errors.hpp"
#include "harness/llm/provider.hpp"
#include "support/run_sync.hpp"

namespace harness::llm {
namespace {

// Answers from a script: a turn or an error per call.
class scripted_provider final : public llm_provider {
 public:
  std::deque<result<llm_turn>> answers;
  boost::asio::awaitable<result<llm_turn>> complete(llm_request) override {
    auto next = std::move(answers.front());
    answers.pop_front();
    co_return next;
  }
  std::string name() const override { return "openai"; }
};

TEST(MeteredProvider, CountsOutcomesTokensAndDurations) {
  auto inner = std::make_shared<scripted_provider>();
  llm_turn turn;
  turn.usage = {120, 30};
  inner->answers.push_back(turn);
  inner->answers.push_back(make_error(harness::llm::errc::rate_limited, "429 after 4 retries"));
  inner->answers.push_back(turn);
  auto metrics = std::make_shared<core::metrics_registry>();
  auto provider = create_metered_provider(core::real_clock(), inner, metrics);
  EXPECT_EQ(provider->name(), "openai");

  boost::asio::io_context io;
  EXPECT_TRUE(harness::testing::run_sync(io, provider->complete({})));
  auto failed = harness::testing::run_sync(io, provider->complete({}));
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, harness::llm::errc::rate_limited);  // passed through unchanged
  EXPECT_TRUE(harness::testing::run_sync(io, provider->complete({})));

  auto text = metrics->render();
  EXPECT_NE(text.find("harness_llm_requests_total{provider=\"openai\",outcome=\"ok\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("harness_llm_requests_total{provider=\"openai\",outcome=\"llm_rate_limited\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("harness_llm_tokens_total{provider=\"openai\",direction=\"input\"} 240\n"), std::string::npos);
  EXPECT_NE(text.find("harness_llm_tokens_total{provider=\"openai\",direction=\"output\"} 60\n"), std::string::npos);
  EXPECT_NE(text.find("harness_llm_request_duration_seconds_count{provider=\"openai\"} 3\n"), std::string::npos);
}

TEST(MeteredProvider, NoRegistryMeansTheProviderItself) {
  auto inner = std::make_shared<scripted_provider>();
  EXPECT_EQ(create_metered_provider(core::real_clock(), inner, nullptr), inner);
}

}  // namespace
}  // namespace harness::llm
