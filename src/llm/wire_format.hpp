// Private to src/llm: a wire dialect turns the neutral request into one HTTP
// request of its API and the API's answer back into a turn.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"
#include "harness/llm/config.hpp"
#include "harness/llm/http_transport.hpp"
#include "harness/llm/types.hpp"

namespace harness::llm::detail {

class wire_dialect {
 public:
  virtual ~wire_dialect() = default;
  virtual std::string name() const = 0;
  // URL, headers (the key among them) and JSON body; the timeout is left to the caller.
  // send_tools false: no tool definitions, and from_text calls/results are sent as plain text.
  virtual net::request build(const llm_request& request, bool send_tools) const = 0;
  // A 2xx body; fails with llm_bad_response saying what is missing.
  virtual result<llm_turn> parse(const std::string& body) const = 0;
};

std::unique_ptr<wire_dialect> make_openai_dialect(const llm_config& config);
std::unique_ptr<wire_dialect> make_anthropic_dialect(const llm_config& config);

// The text a text-mode tool result is sent as (both dialects).
std::string text_mode_result(const message& m);

// The error message inside an error body of either API ({"error":{"message"}}
// or Ollama's {"error":"..."}), else the start of the body; at most 300 chars.
std::string provider_error_message(const std::string& body);

error bad_response(const std::string& api, const std::string& what);

// body.usage.<input_name> / <output_name> (0 when absent) and body.<stop_name> ("" when absent).
void read_usage_and_stop(const nlohmann::json& body, const char* input_name, const char* output_name,
                         const char* stop_name, llm_turn& turn);

}  // namespace harness::llm::detail
