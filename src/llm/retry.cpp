#include "retry.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include <curl/curl.h>
#include <fmt/format.h>

#include "harness/llm/errors.hpp"
#include "wire_format.hpp"

namespace harness::llm::detail {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool mentions_context_size(const std::string& message) {
  std::string m = lower(message);
  for (const char* needle : {"context length", "context_length", "context window", "maximum context", "too long",
                             "too many tokens", "prompt is too long", "request too large"}) {
    if (m.find(needle) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

bool is_retryable_status(long status) {
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504 || status == 529;
}

std::chrono::milliseconds backoff_delay(const retry_policy& policy, int retry, std::mt19937_64& rng) {
  double exp = std::ldexp(static_cast<double>(policy.base_delay.count()), std::clamp(retry - 1, 0, 30));
  auto cap = static_cast<double>(std::max(policy.max_delay, policy.base_delay).count());
  auto full = static_cast<long long>(std::min(exp, cap));
  std::uniform_int_distribution<long long> jitter(0, full / 2);
  return std::chrono::milliseconds(full - full / 2 + jitter(rng));
}

std::optional<std::chrono::milliseconds> retry_after(const net::header_list& headers, long long now_unix_seconds) {
  // The last value of a header (names are lower-case), if any.
  auto last = [&headers](std::string_view name) -> const std::string* {
    const std::string* found = nullptr;
    for (const auto& [n, v] : headers) {
      if (n == name) found = &v;
    }
    return found;
  };
  if (const std::string* ms_text = last("retry-after-ms")) {
    double ms = 0;
    auto [ptr, ec] = std::from_chars(ms_text->data(), ms_text->data() + ms_text->size(), ms);
    if (ec == std::errc{} && ptr == ms_text->data() + ms_text->size() && std::isfinite(ms)) {
      return std::chrono::milliseconds(static_cast<long long>(std::max(0.0, ms)));
    }
  }
  const std::string* found = last("retry-after");
  if (!found || found->empty()) return std::nullopt;
  const std::string& v = *found;
  long long seconds = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), seconds);
  if (ec == std::errc{} && ptr == v.data() + v.size()) return std::chrono::seconds(std::max(0LL, seconds));
  time_t when = curl_getdate(v.c_str(), nullptr);
  if (when < 0) return std::nullopt;
  return std::chrono::seconds(std::max(0LL, static_cast<long long>(when) - now_unix_seconds));
}

std::string redact(std::string text, const std::string& secret) {
  if (secret.empty()) return text;
  for (auto pos = text.find(secret); pos != std::string::npos; pos = text.find(secret, pos)) {
    text.replace(pos, secret.size(), "[REDACTED]");
    pos += 10;
  }
  return text;
}

harness::error http_status_error(long status, const std::string& body, const llm_config& config) {
  const std::string said = redact(provider_error_message(body), config.api_key);
  const std::string api = config.provider == "anthropic" ? "Anthropic" : "OpenAI-compatible";
  auto msg = [&](const std::string& cause) {
    return fmt::format("the {} API at {} answered {}: {} (server said: {})", api, config.base_url, status, cause, said);
  };
  switch (status) {
    case 401:
      return make_error(llm::errc::unauthorized, msg("the API key was rejected"),
                        config.api_key.empty() ? "LLM_API_KEY is not set; set it to a valid key for this provider"
                                               : "check LLM_API_KEY: it is wrong, expired, or for another provider");
    case 403:
      return make_error(llm::errc::forbidden, msg("the key may not use this model or endpoint"),
                        "check the key's permissions, the account's region and billing, and LLM_MODEL");
    case 404:
      return make_error(llm::errc::not_found,
                        msg(fmt::format("unknown model '{}' or wrong endpoint {}", config.model, endpoint_url(config))),
                        config.provider == "anthropic"
                            ? "check LLM_MODEL; LLM_BASE_URL must not include /v1 (e.g. https://api.anthropic.com)"
                            : "check LLM_MODEL; LLM_BASE_URL must include the version (e.g. https://api.openai.com/v1, "
                              "http://localhost:11434/v1)");
    case 408:
      return make_error(llm::errc::timeout, msg("the server timed out reading the request"), "try again later");
    case 413:
      return make_error(llm::errc::request_too_large, msg("the request is too large"),
                        "the conversation is too long for this API; shorten the task or its observations");
    case 429:
      return make_error(llm::errc::rate_limited, msg("rate limit or quota exceeded"),
                        "wait and retry, lower the request rate, or check the account's quota");
    case 529:
    case 503:
      return make_error(llm::errc::overloaded, msg("the service is overloaded or unavailable"), "try again later");
    default:
      break;
  }
  if (status == 400 || status == 422) {
    if (mentions_context_size(said)) {
      return make_error(llm::errc::request_too_large, msg("the conversation exceeds the model's context"),
                        "shorten the task, lower LLM_MAX_TOKENS, or use a model with a larger context");
    }
    return make_error(llm::errc::bad_request, msg("the request was rejected as invalid"),
                      "check LLM_MODEL, LLM_MAX_TOKENS and LLM_TEMPERATURE for this model (some OpenAI models "
                      "reject max_tokens: set LLM_MAX_TOKENS=0)");
  }
  if (status >= 500) return make_error(llm::errc::server_error, msg("server error"), "try again later");
  return make_error(llm::errc::bad_request, msg("unexpected status"), "check LLM_BASE_URL and LLM_PROVIDER");
}

}  // namespace harness::llm::detail
