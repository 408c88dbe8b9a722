// The LLM provider interface: one conversation in, the assistant's next turn
// out. Implementations: OpenAI Chat Completions (also Ollama, vLLM, llama.cpp
// server, LM Studio, OpenRouter), Anthropic Messages, and replay of a recorded
// session; a recorder can wrap any of them. create_llm_provider() builds the
// one llm_config asks for.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "harness/core/clock.hpp"
#include "harness/core/error.hpp"
#include "harness/core/metrics.hpp"
#include "harness/llm/config.hpp"
#include "harness/llm/http_transport.hpp"
#include "harness/llm/types.hpp"

namespace harness::llm {

class llm_provider {
 public:
  virtual ~llm_provider() = default;

  // Asks for the next assistant turn. Runs on the awaiting coroutine's
  // executor and never blocks it. Retries 429/5xx/529 and connection errors
  // with backoff within the deadline; every failure is an error value:
  //   llm_unauthorized (401), llm_forbidden (403), llm_not_found (404: model
  //   or base URL), llm_request_too_large (413, or a 400 about context size),
  //   llm_bad_request (other 4xx), llm_rate_limited / llm_overloaded /
  //   llm_server_error / llm_connection_failed / llm_timeout (retries used
  //   up), llm_deadline_exceeded, llm_bad_response (unparseable answer),
  //   replay_exhausted, cancelled.
  // Cancellation: a terminal/partial/total cancellation of the awaiting
  // coroutine (the agent's task) aborts the HTTP transfer or the backoff wait
  // and completes with "cancelled". Safe to call concurrently from several
  // coroutines; the transport bounds how many run at once.
  virtual boost::asio::awaitable<result<llm_turn>> complete(llm_request request) = 0;

  // "openai", "anthropic", "replay" (a recorder reports the provider it wraps).
  virtual std::string name() const = 0;
};

// The provider config.provider names, wrapped in a recorder when
// config.record_file is set. transport may be null for "replay".
// Fails with invalid_setting (bad replay file, unknown provider...).
// `clock` times calls, retries and deadlines and stamps recordings; it must outlive the provider.
result<std::shared_ptr<llm_provider>> create_llm_provider(core::clock& clock, const llm_config& config,
                                                          std::shared_ptr<http_transport> transport);

// Told about each retry before its backoff: the attempt that failed (from 1),
// the wait chosen (Retry-After or backoff), and the failure. For metrics and tests.
using retry_observer = std::function<void(int attempt, std::chrono::milliseconds wait, const harness::error& why)>;

// The HTTP providers, for callers that build them directly (tests).
std::shared_ptr<llm_provider> create_openai_provider(core::clock& clock, const llm_config& config,
                                                     std::shared_ptr<http_transport> transport,
                                                     retry_observer observer = {});
std::shared_ptr<llm_provider> create_anthropic_provider(core::clock& clock, const llm_config& config,
                                                        std::shared_ptr<http_transport> transport,
                                                        retry_observer observer = {});

// `provider` with every call counted in `metrics`:
// harness_llm_requests_total{provider,outcome} (outcome "ok" or the error code),
// harness_llm_request_duration_seconds{provider} and
// harness_llm_tokens_total{provider,direction="input|output"} from the reported usage.
// Creates those families with zero series for `provider` (outcome "ok",
// both directions), so /metrics lists them before the first call, and even
// when no LLM is configured.
void register_llm_metrics(core::metrics_registry& metrics, const std::string& provider);

std::shared_ptr<llm_provider> create_metered_provider(core::clock& clock, std::shared_ptr<llm_provider> provider,
                                                      std::shared_ptr<core::metrics_registry> metrics);

}  // namespace harness::llm
