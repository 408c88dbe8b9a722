// OpenAI Chat Completions: POST {base}/chat/completions, Bearer key,
// tools[].function, assistant tool_calls with JSON-string arguments, role
// "tool" results, usage.prompt_tokens / completion_tokens.
#include <fmt/format.h>

#include "harness/core/json_parse.hpp"
#include "harness/llm/errors.hpp"
#include "wire_format.hpp"

namespace harness::llm::detail {
namespace {

using nlohmann::json;

json to_wire(const message& m, bool send_tools) {
  switch (m.role) {
    case message_role::system:
    case message_role::user:
      return {{"role", to_string(m.role)}, {"content", m.text}};
    case message_role::tool:
      if (!send_tools || m.from_text) return {{"role", "user"}, {"content", text_mode_result(m)}};
      return {{"role", "tool"}, {"tool_call_id", m.tool_call_id}, {"content", m.text}};
    case message_role::assistant: {
      json out{{"role", "assistant"}, {"content", m.text}};
      json calls = json::array();
      for (const auto& c : m.tool_calls) {
        if (c.from_text || !send_tools) continue;  // the text already holds the code block
        calls.push_back(
            {{"id", c.id},
             {"type", "function"},
             {"function",
              {{"name", c.name},
               {"arguments", c.arguments.is_string() ? c.arguments.get<std::string>() : c.arguments.dump()}}}});
      }
      if (!calls.empty()) {
        out["tool_calls"] = std::move(calls);
        if (m.text.empty()) out["content"] = nullptr;
      }
      return out;
    }
  }
  return {};
}

class openai_dialect final : public wire_dialect {
 public:
  explicit openai_dialect(const llm_config& config) : config_(config) {}

  std::string name() const override { return "openai"; }

  net::request build(const llm_request& request, bool send_tools) const override {
    json messages = json::array();
    for (const auto& m : request.messages) messages.push_back(to_wire(m, send_tools));
    json body{{"model", config_.model}, {"messages", std::move(messages)}};
    if (send_tools && !request.tools.empty()) {
      json tools = json::array();
      for (const auto& t : request.tools) {
        tools.push_back(
            {{"type", "function"},
             {"function", {{"name", t.name}, {"description", t.description}, {"parameters", t.input_schema}}}});
      }
      body["tools"] = std::move(tools);
    }
    int max_tokens = request.max_tokens.value_or(config_.max_tokens);
    if (max_tokens > 0) body["max_tokens"] = max_tokens;
    if (auto t = request.temperature ? request.temperature : config_.temperature) body["temperature"] = *t;

    net::request out;
    out.url = endpoint_url(config_);
    out.headers.emplace_back("Content-Type", "application/json");
    out.headers.emplace_back("Accept", "application/json");
    // Local servers (Ollama, llama.cpp) need no key; sending an empty Bearer would confuse some.
    if (!config_.api_key.empty()) out.headers.emplace_back("Authorization", "Bearer " + config_.api_key);
    out.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
    return out;
  }

  result<llm_turn> parse(const std::string& text) const override {
    json body = core::parse_json(text);
    if (body.is_discarded() || !body.is_object()) return bad_response("OpenAI", "the body is not a JSON object");
    if (!body.contains("choices") || !body["choices"].is_array() || body["choices"].empty()) {
      return bad_response("OpenAI", "no choices[0]");
    }
    const json& choice = body["choices"][0];
    if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object()) {
      return bad_response("OpenAI", "no choices[0].message");
    }
    const json& msg = choice["message"];
    llm_turn turn;
    if (msg.contains("content")) {
      const json& content = msg["content"];
      if (content.is_string()) {
        turn.text = content.get<std::string>();
      } else if (content.is_array()) {  // some compatible servers send content parts
        for (const auto& part : content) {
          if (part.is_object() && part.value("type", "") == "text") turn.text += part.value("text", "");
        }
      } else if (!content.is_null()) {
        return bad_response("OpenAI", "choices[0].message.content is neither text nor null");
      }
    }
    if (msg.contains("tool_calls") && msg["tool_calls"].is_array()) {
      for (const auto& c : msg["tool_calls"]) {
        if (!c.is_object() || !c.contains("function") || !c["function"].is_object() ||
            !c["function"].contains("name") || !c["function"]["name"].is_string()) {
          return bad_response("OpenAI", "a tool call without function.name");
        }
        tool_call call;
        call.id = c.value("id", "");
        call.name = c["function"]["name"].get<std::string>();
        const json& args = c["function"].value("arguments", json());
        if (args.is_string()) {
          json parsed = core::parse_json(args.get<std::string>());
          call.arguments = parsed.is_object() ? parsed : args;
        } else if (args.is_object()) {
          call.arguments = args;  // Ollama and others send the object itself
        } else {
          call.arguments = json::object();
        }
        turn.tool_calls.push_back(std::move(call));
      }
    }
    read_usage_and_stop(body, "prompt_tokens", "completion_tokens", "", turn);
    read_usage_and_stop(choice, "", "", "finish_reason", turn);
    return turn;
  }

 private:
  llm_config config_;
};

}  // namespace

std::unique_ptr<wire_dialect> make_openai_dialect(const llm_config& config) {
  return std::make_unique<openai_dialect>(config);
}

std::string text_mode_result(const message& m) {
  return fmt::format("{} of the code block:\n{}", m.is_error ? "Error" : "Result", m.text);
}

std::string provider_error_message(const std::string& body) {
  json j = core::parse_json(body);
  std::string message;
  if (j.is_object() && j.contains("error")) {
    const json& e = j["error"];
    if (e.is_string()) {
      message = e.get<std::string>();
    } else if (e.is_object() && e.contains("message") && e["message"].is_string()) {
      message = e["message"].get<std::string>();
    }
  }
  if (message.empty()) message = body;
  for (auto& c : message) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  if (message.size() > 300) message = message.substr(0, 300) + "...";
  return message;
}

void read_usage_and_stop(const json& body, const char* input_name, const char* output_name, const char* stop_name,
                         llm_turn& turn) {
  if (*stop_name && body.contains(stop_name) && body[stop_name].is_string()) turn.stop_reason = body[stop_name];
  if (!*input_name || !body.contains("usage") || !body["usage"].is_object()) return;
  const json& u = body["usage"];
  if (u.contains(input_name) && u[input_name].is_number_integer()) turn.usage.input_tokens = u[input_name];
  if (u.contains(output_name) && u[output_name].is_number_integer()) turn.usage.output_tokens = u[output_name];
}

error bad_response(const std::string& api, const std::string& what) {
  return make_error(llm::errc::bad_response, fmt::format("unexpected answer from the {} API: {}", api, what),
                    "check that LLM_PROVIDER matches the server at LLM_BASE_URL");
}

}  // namespace harness::llm::detail
