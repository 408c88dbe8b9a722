#include "harness/llm/config.hpp"

#include <charconv>
#include <cstdlib>

#include <fmt/format.h>

namespace harness::llm {
namespace {

using harness::core::setting_spec;

error invalid(const std::string& name, const std::string& value, const std::string& rule, const std::string& hint) {
  return make_error(core::errc::invalid_setting, fmt::format("invalid {}: '{}' {}", name, value, rule), hint);
}

// Accepts http(s)://host[:port][/path] only: no credentials in the URL (they
// would end up in logs), no query or fragment (paths are appended to it).
result<std::string> check_base_url(const std::string& url) {
  const std::string hint =
      "set LLM_BASE_URL to e.g. https://api.openai.com/v1, http://localhost:11434/v1 (OpenAI-compatible) or "
      "https://api.anthropic.com (Anthropic); the key goes in LLM_API_KEY";
  std::string_view rest;
  if (url.rfind("http://", 0) == 0) {
    rest = std::string_view(url).substr(7);
  } else if (url.rfind("https://", 0) == 0) {
    rest = std::string_view(url).substr(8);
  } else {
    return invalid("LLM_BASE_URL", url, "is not an http:// or https:// URL", hint);
  }
  auto authority = rest.substr(0, rest.find('/'));
  if (authority.empty()) return invalid("LLM_BASE_URL", url, "has no host", hint);
  if (authority.find('@') != std::string_view::npos) {
    // Do not echo it: the user part may be a key.
    return make_error(core::errc::invalid_setting, "invalid LLM_BASE_URL: credentials in the URL are not accepted",
                      hint);
  }
  if (url.find_first_of("?# \t") != std::string::npos) {
    return invalid("LLM_BASE_URL", url, "must not contain a query, a fragment or spaces", hint);
  }
  std::string out = url;
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

}  // namespace

std::vector<setting_spec> llm_setting_specs() {
  return {
      {"LLM_PROVIDER", "openai",
       "LLM API: openai (also Ollama, vLLM, llama.cpp, LM Studio, OpenRouter), anthropic, replay"},
      {"LLM_MODEL", "", "model name; empty: gpt-4o-mini (openai) or claude-sonnet-4-5 (anthropic)"},
      {"LLM_API_KEY", "", "API key (sent as Bearer token or x-api-key; never logged)", true},
      {"LLM_BASE_URL", "",
       "API base as the provider's SDK means it: https://api.openai.com/v1 (with version), https://api.anthropic.com "
       "(without); empty: that default"},
      {"LLM_TIMEOUT_MS", "120000", "timeout of one HTTP attempt to the LLM"},
      {"LLM_DEADLINE_MS", "300000", "deadline of one LLM call including retries and backoff"},
      {"LLM_MAX_RETRIES", "4", "retries on 429, 5xx, 529 and connection errors (0 disables)"},
      {"LLM_RETRY_BASE_MS", "500", "first retry backoff, doubled per retry, with jitter; Retry-After wins"},
      {"LLM_MAX_TOKENS", "4096", "max output tokens per turn (0: not sent; Anthropic requires a value)"},
      {"LLM_TEMPERATURE", "", "sampling temperature 0..2; empty: the provider's default"},
      {"LLM_TOOL_MODE", "auto",
       "native (tool calls), text (read a fenced javascript block; models without tools), auto (tools, text fallback)"},
      {"LLM_MAX_CONCURRENT", "8", "LLM HTTP calls in flight at once; more wait in a queue (256 max, then llm_busy)"},
      {"LLM_PROXY", "",
       "proxy URL for LLM calls; empty: the environment's (https_proxy, no_proxy, ...); none: no proxy at all"},
      {"LLM_ANTHROPIC_VERSION", "2023-06-01", "anthropic-version header"},
      {"LLM_RECORD", "", "append every LLM exchange to this JSONL file (for replay)"},
      {"LLM_REPLAY_FILE", "", "JSONL file that LLM_PROVIDER=replay answers from, in order"},
  };
}

result<llm_config> load_llm_config(const harness::core::settings& s) {
  llm_config c;
  auto provider = s.get_choice("LLM_PROVIDER", {"openai", "anthropic", "replay"});
  if (!provider) return provider.error();
  c.provider = *provider;
  c.model = s.get("LLM_MODEL");
  if (c.model.empty()) c.model = c.provider == "anthropic" ? "claude-sonnet-4-5" : "gpt-4o-mini";
  c.api_key = s.get("LLM_API_KEY");
  std::string base = s.get("LLM_BASE_URL");
  if (base.empty()) base = c.provider == "anthropic" ? "https://api.anthropic.com" : "https://api.openai.com/v1";
  auto url = check_base_url(base);
  if (!url) return url.error();
  c.base_url = *url;

  auto timeout = s.get_ms("LLM_TIMEOUT_MS", 100, 3600000);
  if (!timeout) return timeout.error();
  c.timeout = *timeout;
  auto deadline = s.get_ms("LLM_DEADLINE_MS", 100, 24 * 3600000);
  if (!deadline) return deadline.error();
  c.deadline = *deadline;
  auto retries = s.get_int("LLM_MAX_RETRIES", 0, 20);
  if (!retries) return retries.error();
  c.retry.max_retries = static_cast<int>(*retries);
  auto base_delay = s.get_ms("LLM_RETRY_BASE_MS", 1, 60000);
  if (!base_delay) return base_delay.error();
  c.retry.base_delay = *base_delay;
  auto max_tokens = s.get_int("LLM_MAX_TOKENS", 0, 1000000);
  if (!max_tokens) return max_tokens.error();
  c.max_tokens = static_cast<int>(*max_tokens);
  if (c.max_tokens == 0 && c.provider == "anthropic") {
    return invalid("LLM_MAX_TOKENS", "0", "is not allowed with LLM_PROVIDER=anthropic",
                   "the Messages API requires max_tokens; set e.g. 4096");
  }
  if (const std::string& t = s.get("LLM_TEMPERATURE"); !t.empty()) {
    char* end = nullptr;
    double value = std::strtod(t.c_str(), &end);
    if (end != t.c_str() + t.size() || !(value >= 0.0 && value <= 2.0)) {
      return invalid("LLM_TEMPERATURE", t, "is not a number in 0..2", "leave it empty for the provider's default");
    }
    c.temperature = value;
  }
  auto mode = s.get_choice("LLM_TOOL_MODE", {"auto", "native", "text"});
  if (!mode) return mode.error();
  c.tools = *mode == "native" ? tool_mode::native : *mode == "text" ? tool_mode::text : tool_mode::automatic;
  auto concurrent = s.get_int("LLM_MAX_CONCURRENT", 1, 1024);
  if (!concurrent) return concurrent.error();
  c.max_concurrent = static_cast<std::size_t>(*concurrent);
  c.proxy = s.get("LLM_PROXY");
  c.anthropic_version = s.get("LLM_ANTHROPIC_VERSION");
  c.record_file = s.get("LLM_RECORD");
  c.replay_file = s.get("LLM_REPLAY_FILE");
  if (c.provider == "replay" && c.replay_file.empty()) {
    return make_error(core::errc::invalid_setting, "LLM_PROVIDER=replay needs LLM_REPLAY_FILE",
                      "point LLM_REPLAY_FILE at a JSONL file written with LLM_RECORD");
  }
  return c;
}

std::string endpoint_url(const llm_config& config) {
  return config.provider == "anthropic" ? config.base_url + "/v1/messages" : config.base_url + "/chat/completions";
}

}  // namespace harness::llm
