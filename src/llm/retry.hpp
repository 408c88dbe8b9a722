// Private to src/llm: when to retry, how long to wait, and what a failed
// HTTP status means for the user.
#pragma once

#include <chrono>
#include <optional>
#include <random>
#include <string>

#include "harness/core/error.hpp"
#include "harness/llm/config.hpp"
#include "harness/net/http_client.hpp"

namespace harness::llm::detail {

// 429, 500, 502, 503, 504, 529.
bool is_retryable_status(long status);

// Exponential backoff with "equal jitter": half of min(max, base * 2^(retry-1))
// plus a uniform random part up to the other half. retry counts from 1.
std::chrono::milliseconds backoff_delay(const retry_policy& policy, int retry, std::mt19937_64& rng);

// The wait the server asks for: retry-after-ms (OpenAI), else Retry-After as
// delta-seconds or an HTTP date (relative to now_unix_seconds); nullopt when
// absent or unreadable. Negative waits become 0.
// A header named twice counts with its last value.
std::optional<std::chrono::milliseconds> retry_after(const net::header_list& headers, long long now_unix_seconds);

// The error for a non-2xx answer: code by status (llm_unauthorized, ...), a
// message naming the likely cause with the provider's own message (scrubbed
// of the key), and a hint about the setting to check.
harness::error http_status_error(long status, const std::string& body, const llm_config& config);

// text with every occurrence of secret replaced by "[REDACTED]" (no-op for an empty secret).
std::string redact(std::string text, const std::string& secret);

}  // namespace harness::llm::detail
