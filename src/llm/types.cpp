#include "harness/llm/types.hpp"
#include "harness/core/error_json.hpp"
#include "harness/llm/errors.hpp"

#include <fmt/format.h>

namespace harness::llm {
namespace {

using nlohmann::json;

error bad_field(std::string_view what, std::string_view field) {
  return make_error(llm::errc::invalid_json,
                    fmt::format("{}: field '{}' is missing or has the wrong type", what, field),
                    "the file or body does not follow the llm exchange format (docs/architecture/llm.md)");
}

json calls_to_json(const std::vector<tool_call>& calls) {
  json out = json::array();
  for (const auto& c : calls) {
    json j{{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}};
    if (c.from_text) j["fromText"] = true;
    out.push_back(std::move(j));
  }
  return out;
}

result<std::vector<tool_call>> calls_from_json(const json& j, std::string_view what) {
  std::vector<tool_call> calls;
  if (!j.is_array()) return bad_field(what, "toolCalls");
  for (const auto& c : j) {
    if (!c.is_object() || !c.contains("name") || !c["name"].is_string()) return bad_field(what, "toolCalls[].name");
    tool_call call;
    call.id = c.value("id", "");
    call.name = c["name"].get<std::string>();
    call.arguments = c.value("arguments", json::object());
    call.from_text = c.value("fromText", false);
    calls.push_back(std::move(call));
  }
  return calls;
}

// The optional "text" and "toolCalls" fields that messages and turns share.
status read_text_and_calls(const json& j, std::string_view what, std::string& text, std::vector<tool_call>& calls) {
  if (j.contains("text")) {
    if (!j["text"].is_string()) return bad_field(what, "text");
    text = j["text"].get<std::string>();
  }
  if (j.contains("toolCalls")) {
    auto parsed = calls_from_json(j["toolCalls"], what);
    if (!parsed) return parsed.error();
    calls = std::move(*parsed);
  }
  return {};
}

}  // namespace

tool_spec execute_code_tool(std::string_view language) {
  return tool_spec{"execute_code",
                   // Short, and "code" needs no description of its own: this is sent with
                   // every request, and the system prompt teaches the API.
                   "Runs " + std::string(language) + "; returns its output and return value.",
                   json{{"type", "object"}, {"properties", {{"code", {{"type", "string"}}}}}, {"required", {"code"}}}};
}

std::string_view to_string(message_role r) {
  switch (r) {
    case message_role::system:
      return "system";
    case message_role::user:
      return "user";
    case message_role::assistant:
      return "assistant";
    case message_role::tool:
      return "tool";
  }
  return "user";
}

result<message_role> role_from_string(std::string_view s) {
  if (s == "system") return message_role::system;
  if (s == "user") return message_role::user;
  if (s == "assistant") return message_role::assistant;
  if (s == "tool") return message_role::tool;
  return make_error(llm::errc::invalid_json, fmt::format("unknown message role '{}'", s),
                    "use system, user, assistant or tool");
}

json to_json(const message& m) {
  json j{{"role", to_string(m.role)}, {"text", m.text}};
  if (!m.tool_calls.empty()) j["toolCalls"] = calls_to_json(m.tool_calls);
  if (m.role == message_role::tool) {
    j["toolCallId"] = m.tool_call_id;
    if (m.is_error) j["isError"] = true;
    if (m.from_text) j["fromText"] = true;
  }
  return j;
}

json to_json(const llm_request& r) {
  json messages = json::array();
  for (const auto& m : r.messages) messages.push_back(to_json(m));
  json tools = json::array();
  for (const auto& t : r.tools) {
    tools.push_back({{"name", t.name}, {"description", t.description}, {"inputSchema", t.input_schema}});
  }
  json j{{"messages", std::move(messages)}, {"tools", std::move(tools)}};
  if (r.max_tokens) j["maxTokens"] = *r.max_tokens;
  if (r.temperature) j["temperature"] = *r.temperature;
  return j;
}

json to_json(const llm_turn& t) {
  return json{{"text", t.text},
              {"toolCalls", calls_to_json(t.tool_calls)},
              {"usage", {{"inputTokens", t.usage.input_tokens}, {"outputTokens", t.usage.output_tokens}}},
              {"stopReason", t.stop_reason}};
}

json to_json(const harness::error& e) {
  // A recording always writes "hint" (empty when there is none).
  json out = error_json(e);
  out["hint"] = e.hint;
  return out;
}

namespace {

result<message> message_from_json_unchecked(const json& j) {
  if (!j.is_object() || !j.contains("role") || !j["role"].is_string()) return bad_field("message", "role");
  auto r = role_from_string(j["role"].get<std::string>());
  if (!r) return r.error();
  message m;
  m.role = *r;
  if (auto st = read_text_and_calls(j, "message", m.text, m.tool_calls); !st) return st.error();
  m.tool_call_id = j.value("toolCallId", "");
  m.is_error = j.value("isError", false);
  m.from_text = j.value("fromText", false);
  return m;
}

result<llm_request> request_from_json_unchecked(const json& j) {
  if (!j.is_object() || !j.contains("messages") || !j["messages"].is_array()) return bad_field("request", "messages");
  llm_request r;
  for (const auto& m : j["messages"]) {
    auto parsed = message_from_json(m);
    if (!parsed) return parsed.error();
    r.messages.push_back(std::move(*parsed));
  }
  if (j.contains("tools") && j["tools"].is_array()) {
    for (const auto& t : j["tools"]) {
      if (!t.is_object() || !t.contains("name") || !t["name"].is_string()) return bad_field("request", "tools[].name");
      r.tools.push_back(
          {t["name"].get<std::string>(), t.value("description", ""), t.value("inputSchema", json::object())});
    }
  }
  if (j.contains("maxTokens") && j["maxTokens"].is_number_integer()) r.max_tokens = j["maxTokens"].get<int>();
  if (j.contains("temperature") && j["temperature"].is_number()) r.temperature = j["temperature"].get<double>();
  return r;
}

result<llm_turn> turn_from_json_unchecked(const json& j) {
  if (!j.is_object()) return bad_field("turn", "(object)");
  llm_turn t;
  if (auto st = read_text_and_calls(j, "turn", t.text, t.tool_calls); !st) return st.error();
  if (j.contains("usage") && j["usage"].is_object()) {
    t.usage.input_tokens = j["usage"].value("inputTokens", std::int64_t{0});
    t.usage.output_tokens = j["usage"].value("outputTokens", std::int64_t{0});
  }
  t.stop_reason = j.value("stopReason", "");
  return t;
}

harness::error error_from_json_unchecked(const json& j) {
  if (!j.is_object()) return make_error(llm::errc::error, "recorded error without details");
  // A recording names the code by its wire name; one this build does not know
  // replays as llm_error.
  const std::string wire = j.value("code", "");
  harness::error_code code = llm::errc::error;
  if (auto own = errc_from_wire_name<llm::errc>(wire)) {
    code = *own;
  } else if (auto common = errc_from_wire_name<core::errc>(wire)) {
    code = *common;
  }
  return make_error(code, j.value("message", ""), j.value("hint", ""));
}

// The public parsers: nlohmann throws on a field of the wrong type (an id
// that is a number...); that is bad input, reported as a value.
template <class F>
auto guarded(F f, std::string_view what) -> decltype(f()) {
  try {
    return f();
  } catch (const json::exception& e) {
    return make_error(llm::errc::invalid_json, fmt::format("{}: {}", what, e.what()),
                      "the file or body does not follow the llm exchange format (docs/architecture/llm.md)");
  }
}

}  // namespace

result<message> message_from_json(const json& j) {
  return guarded([&] { return message_from_json_unchecked(j); }, "message");
}
result<llm_request> request_from_json(const json& j) {
  return guarded([&] { return request_from_json_unchecked(j); }, "request");
}
result<llm_turn> turn_from_json(const json& j) {
  return guarded([&] { return turn_from_json_unchecked(j); }, "turn");
}
harness::error error_from_json(const json& j) {
  try {
    return error_from_json_unchecked(j);
  } catch (const json::exception&) {
    return make_error(llm::errc::error, "recorded error with malformed details");
  }
}

}  // namespace harness::llm
