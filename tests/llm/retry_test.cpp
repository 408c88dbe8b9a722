#include <gtest/gtest.h>

#include "retry.hpp"

#include "harness/llm/errors.hpp"

namespace harness::llm::detail {
namespace {

using std::chrono::milliseconds;

TEST(LlmRetry, RetryableStatusesAreExactlyTheTransientOnes) {
  for (long s : {429L, 500L, 502L, 503L, 504L, 529L}) EXPECT_TRUE(is_retryable_status(s)) << s;
  for (long s : {200L, 400L, 401L, 403L, 404L, 413L, 422L, 501L}) EXPECT_FALSE(is_retryable_status(s)) << s;
}

TEST(LlmRetry, BackoffDoublesWithJitterInTheUpperHalfAndIsCapped) {
  retry_policy p;
  p.base_delay = milliseconds(100);
  p.max_delay = milliseconds(1000);
  std::mt19937_64 rng(42);
  for (int i = 0; i < 200; ++i) {
    auto first = backoff_delay(p, 1, rng);
    EXPECT_GE(first, milliseconds(50));
    EXPECT_LE(first, milliseconds(100));
    auto third = backoff_delay(p, 3, rng);
    EXPECT_GE(third, milliseconds(200));
    EXPECT_LE(third, milliseconds(400));
    auto capped = backoff_delay(p, 30, rng);
    EXPECT_GE(capped, milliseconds(500));
    EXPECT_LE(capped, milliseconds(1000));
  }
}

TEST(LlmRetry, RetryAfterInSecondsMillisecondsOrHttpDate) {
  EXPECT_EQ(retry_after({{"retry-after", "7"}}, 0), milliseconds(7000));
  EXPECT_EQ(retry_after({{"retry-after-ms", "250"}, {"retry-after", "7"}}, 0), milliseconds(250));
  // Sun, 06 Nov 1994 08:49:37 GMT is 784111777.
  EXPECT_EQ(retry_after({{"retry-after", "Sun, 06 Nov 1994 08:49:37 GMT"}}, 784111777 - 3), milliseconds(3000));
  EXPECT_EQ(retry_after({{"retry-after", "Sun, 06 Nov 1994 08:49:37 GMT"}}, 784111777 + 60), milliseconds(0));
  EXPECT_FALSE(retry_after({{"retry-after", "soon"}}, 0));
  EXPECT_FALSE(retry_after({}, 0));
}

TEST(LlmRetry, StatusErrorsNameTheCauseAndNeverTheKey) {
  llm_config c;
  c.provider = "openai";
  c.model = "gpt-nope";
  c.base_url = "http://127.0.0.1:1/v1";
  c.api_key = "sk-live-abcdef123456";
  auto unauthorized = http_status_error(
      401,
      R"({"error":{"message":"Incorrect API key provided: sk-live-abcdef123456.","type":"invalid_request_error"}})", c);
  EXPECT_EQ(unauthorized.code, harness::llm::errc::unauthorized);
  EXPECT_EQ(unauthorized.describe().find("sk-live-abcdef123456"), std::string::npos);
  EXPECT_NE(unauthorized.message.find("[REDACTED]"), std::string::npos);
  EXPECT_NE(unauthorized.hint.find("LLM_API_KEY"), std::string::npos);

  auto not_found = http_status_error(404, R"({"error":{"message":"The model `gpt-nope` does not exist"}})", c);
  EXPECT_EQ(not_found.code, harness::llm::errc::not_found);
  EXPECT_NE(not_found.message.find("gpt-nope"), std::string::npos);
  EXPECT_NE(not_found.hint.find("/v1"), std::string::npos);

  EXPECT_EQ(http_status_error(403, "{}", c).code, harness::llm::errc::forbidden);
  EXPECT_EQ(http_status_error(413, "too big", c).code, harness::llm::errc::request_too_large);
  EXPECT_EQ(
      http_status_error(400, R"({"error":{"message":"This model's maximum context length is 8192 tokens"}})", c).code,
      harness::llm::errc::request_too_large);
  EXPECT_EQ(http_status_error(400, R"({"error":"bad temperature"})", c).code, harness::llm::errc::bad_request);
  EXPECT_NE(http_status_error(400, R"({"error":"bad temperature"})", c).message.find("bad temperature"),
            std::string::npos);
  EXPECT_EQ(http_status_error(429, "{}", c).code, harness::llm::errc::rate_limited);
  EXPECT_EQ(http_status_error(529, "{}", c).code, harness::llm::errc::overloaded);
  EXPECT_EQ(http_status_error(502, "<html>", c).code, harness::llm::errc::server_error);
}

}  // namespace
}  // namespace harness::llm::detail
