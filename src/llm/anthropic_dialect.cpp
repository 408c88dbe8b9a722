// Anthropic Messages: POST {base}/v1/messages, x-api-key and
// anthropic-version headers, top-level system, content blocks (text,
// tool_use, tool_result), usage.input_tokens / output_tokens.
#include "harness/core/json_parse.hpp"
#include "wire_format.hpp"

namespace harness::llm::detail {
namespace {

using nlohmann::json;

// Blocks of one message; the API rejects empty text blocks, so they are left out.
json blocks_of(const message& m, bool send_tools) {
  json blocks = json::array();
  auto add_text = [&](const std::string& text) {
    if (!text.empty()) blocks.push_back({{"type", "text"}, {"text", text}});
  };
  if (m.role == message_role::tool) {
    if (!send_tools || m.from_text) {
      add_text(text_mode_result(m));
    } else {
      json block{{"type", "tool_result"}, {"tool_use_id", m.tool_call_id}, {"content", m.text}};
      if (m.is_error) block["is_error"] = true;
      blocks.push_back(std::move(block));
    }
    return blocks;
  }
  add_text(m.text);
  for (const auto& c : m.tool_calls) {
    if (c.from_text || !send_tools) continue;
    blocks.push_back({{"type", "tool_use"},
                      {"id", c.id},
                      {"name", c.name},
                      {"input", c.arguments.is_object() ? c.arguments : json::object()}});
  }
  return blocks;
}

class anthropic_dialect final : public wire_dialect {
 public:
  explicit anthropic_dialect(const llm_config& config) : config_(config) {}

  std::string name() const override { return "anthropic"; }

  net::request build(const llm_request& request, bool send_tools) const override {
    std::string system;
    json messages = json::array();
    for (const auto& m : request.messages) {
      if (m.role == message_role::system) {
        system += (system.empty() ? "" : "\n\n") + m.text;
        continue;
      }
      std::string wire_role = m.role == message_role::assistant ? "assistant" : "user";
      json blocks = blocks_of(m, send_tools);
      if (blocks.empty()) continue;
      // Consecutive messages of one role (several tool results, a result and a
      // user note) become one message: the API wants user and assistant to alternate.
      if (!messages.empty() && messages.back()["role"] == wire_role) {
        for (auto& b : blocks) messages.back()["content"].push_back(std::move(b));
      } else {
        messages.push_back({{"role", wire_role}, {"content", std::move(blocks)}});
      }
    }
    json body{{"model", config_.model},
              {"max_tokens", request.max_tokens.value_or(config_.max_tokens)},
              {"messages", std::move(messages)}};
    if (!system.empty()) body["system"] = system;
    if (send_tools && !request.tools.empty()) {
      json tools = json::array();
      for (const auto& t : request.tools) {
        tools.push_back({{"name", t.name}, {"description", t.description}, {"input_schema", t.input_schema}});
      }
      body["tools"] = std::move(tools);
    }
    if (auto t = request.temperature ? request.temperature : config_.temperature) body["temperature"] = *t;

    net::request out;
    out.url = endpoint_url(config_);
    out.headers.emplace_back("content-type", "application/json");
    out.headers.emplace_back("anthropic-version", config_.anthropic_version);
    if (!config_.api_key.empty()) out.headers.emplace_back("x-api-key", config_.api_key);
    out.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
    return out;
  }

  result<llm_turn> parse(const std::string& text) const override {
    json body = core::parse_json(text);
    if (body.is_discarded() || !body.is_object()) return bad_response("Anthropic", "the body is not a JSON object");
    if (!body.contains("content") || !body["content"].is_array()) return bad_response("Anthropic", "no content array");
    llm_turn turn;
    for (const auto& block : body["content"]) {
      if (!block.is_object()) return bad_response("Anthropic", "a content block is not an object");
      std::string type = block.value("type", "");
      if (type == "text") {
        if (!turn.text.empty()) turn.text += "\n";
        turn.text += block.value("text", "");
      } else if (type == "tool_use") {
        if (!block.contains("name") || !block["name"].is_string()) {
          return bad_response("Anthropic", "a tool_use block without a name");
        }
        tool_call call;
        call.id = block.value("id", "");
        call.name = block["name"].get<std::string>();
        call.arguments = block.value("input", json::object());
        turn.tool_calls.push_back(std::move(call));
      }
      // thinking and other block types carry nothing the agent uses.
    }
    read_usage_and_stop(body, "input_tokens", "output_tokens", "stop_reason", turn);
    return turn;
  }

 private:
  llm_config config_;
};

}  // namespace

std::unique_ptr<wire_dialect> make_anthropic_dialect(const llm_config& config) {
  return std::make_unique<anthropic_dialect>(config);
}

}  // namespace harness::llm::detail
