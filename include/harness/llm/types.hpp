// The conversation an agent sends to an LLM and the turn it gets back, in a
// provider-neutral form. Each provider translates these to and from its own
// wire format (OpenAI Chat Completions, Anthropic Messages); the recorder and
// the replay provider store them as JSON (to_json / from_json below).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"
#include "harness/telemetry/span.hpp"

namespace harness::llm {

enum class message_role { system, user, assistant, tool };

// One call of a tool the model asked for.
struct tool_call {
  // The provider's id ("call_abc", "toolu_01..."); synthesized ("call_1") when a
  // server sends none. The matching tool result must carry the same id.
  std::string id;
  std::string name;
  // The arguments object. When the model produced text that is not a JSON
  // object, this holds that text as a JSON string, so the agent can report it.
  nlohmann::json arguments = nlohmann::json::object();
  // True when the call was read from a fenced ```javascript block in the text
  // (a model without native tool calling): the text already carries the code,
  // and the result goes back to the model as a user message.
  bool from_text = false;
};

struct message {
  message_role role = message_role::user;
  // system/user: the prompt; assistant: the text part (may be empty when the
  // turn is only tool calls); tool: the result (observation) text.
  std::string text;
  // assistant only.
  std::vector<tool_call> tool_calls;
  // tool only: which call this answers, and whether the call failed.
  std::string tool_call_id;
  bool is_error = false;
  // tool only: copied from the call, so a text-mode result can be recognised.
  bool from_text = false;
};

// A tool the agent offers; in practice one: execute_code {code: string}.
struct tool_spec {
  std::string name;
  std::string description;
  nlohmann::json input_schema;  // JSON Schema of the arguments object
};

// The execute_code tool as the agent offers it to the model.
// `language`: how the description names the code's language ("JavaScript", "Python").
tool_spec execute_code_tool(std::string_view language = "JavaScript");

struct llm_request {
  std::vector<message> messages;
  std::vector<tool_spec> tools;
  // Overrides of the configured values for this call; nullopt = configured.
  std::optional<int> max_tokens;
  std::optional<double> temperature;
  // Absolute deadline for the whole call including retries; the earlier of
  // this and the configured LLM_DEADLINE_MS wins.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // The span the call's own (client) span hangs below; its traceparent goes
  // to the provider. Empty: not traced.
  telemetry::span_parent trace;
};

// Tokens as the API reports them (OpenAI prompt/completion, Anthropic
// input/output); 0 when the server reported none.
struct token_usage {
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
};

struct llm_turn {
  std::string text;
  std::vector<tool_call> tool_calls;
  token_usage usage;
  // The provider's reason, as sent: "stop", "tool_calls", "end_turn", "tool_use", "max_tokens"...
  std::string stop_reason;
  // How many HTTP attempts this turn took (1 = no retry); 0 for replayed turns.
  int attempts = 0;
};

std::string_view to_string(message_role r);
result<message_role> role_from_string(std::string_view s);

nlohmann::json to_json(const message& m);
nlohmann::json to_json(const llm_request& r);
nlohmann::json to_json(const llm_turn& t);
nlohmann::json to_json(const harness::error& e);
// Each fails with code "invalid_json" naming the field that is wrong.
result<message> message_from_json(const nlohmann::json& j);
result<llm_request> request_from_json(const nlohmann::json& j);
result<llm_turn> turn_from_json(const nlohmann::json& j);
harness::error error_from_json(const nlohmann::json& j);

}  // namespace harness::llm
