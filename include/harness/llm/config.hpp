// LLM settings (LLM_* environment variables / flags) and their typed form.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/error.hpp"
#include "harness/core/settings.hpp"

namespace harness::llm {

// How the model is asked for code.
//   native: send the tools; only real tool calls count.
//   text:   send no tools; a fenced ```javascript block in the text becomes an
//           execute_code call (for models without tool calling).
//   auto:   send the tools; if a turn has no tool call but a fenced block, use it.
enum class tool_mode { native, text, automatic };

struct retry_policy {
  int max_retries = 4;                         // attempts = max_retries + 1
  std::chrono::milliseconds base_delay{500};   // first backoff, doubled each retry
  std::chrono::milliseconds max_delay{30000};  // cap of one computed backoff (not of Retry-After)
};

struct llm_config {
  std::string provider = "openai";             // openai | anthropic | replay
  std::string model;                           // never empty after load (provider default)
  std::string api_key;                         // secret: never logged, never in an error
  std::string base_url;                        // without trailing '/'; provider default when unset
  std::chrono::milliseconds timeout{120000};   // one HTTP attempt
  std::chrono::milliseconds deadline{300000};  // the whole call, retries included
  int max_tokens = 4096;                       // 0: not sent (OpenAI only; Anthropic needs it)
  std::optional<double> temperature;           // unset: the provider's default
  tool_mode tools = tool_mode::automatic;
  retry_policy retry;
  std::string anthropic_version = "2023-06-01";
  std::size_t max_concurrent = 8;
  std::string proxy;
  std::string record_file;  // LLM_RECORD: append every exchange here (JSONL)
  std::string replay_file;  // LLM_REPLAY_FILE: the session LLM_PROVIDER=replay answers from
};

std::vector<harness::core::setting_spec> llm_setting_specs();

// Validates every LLM_* value (URL scheme and form, ranges, choices). A missing
// API key is not an error here: local servers need none, and the server must
// start without an LLM; /health shows whether one is set.
result<llm_config> load_llm_config(const harness::core::settings& settings);

// The URL requests go to: {base}/chat/completions (OpenAI: the base includes
// /v1) or {base}/v1/messages (Anthropic: it does not).
std::string endpoint_url(const llm_config& config);

}  // namespace harness::llm
