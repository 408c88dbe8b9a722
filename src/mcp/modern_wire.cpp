#include "modern_wire.hpp"

#include <algorithm>

#include "harness/core/base64.hpp"

namespace harness::mcp::detail::modern {

using nlohmann::json;

bool is_modern(std::string_view protocol_version) {
  // Revisions are dates, so they sort as text; the first without initialize is 2026-07-28.
  return protocol_version >= std::string_view(version);
}

void add_envelope(json& params, const std::string& client_name, const std::string& client_version) {
  if (!params.is_object()) params = json::object();
  json& meta = params["_meta"];
  if (!meta.is_object()) meta = json::object();
  meta[version_key] = version;
  meta[capabilities_key] = {{"elicitation", {{"form", json::object()}}},
                            {"extensions", {{tasks_extension, json::object()}}}};
  meta[client_info_key] = {{"name", client_name}, {"version", client_version}};
}

std::optional<std::string> routing_name(const json& message) {
  if (!message.is_object()) return std::nullopt;
  const auto method = message.find("method");
  const auto params = message.find("params");
  if (method == message.end() || !method->is_string() || params == message.end() || !params->is_object()) {
    return std::nullopt;
  }
  const std::string& m = method->get_ref<const std::string&>();
  const char* key = nullptr;
  if (m == "tools/call" || m == "prompts/get") key = "name";
  if (m == "resources/read") key = "uri";
  if (m.starts_with("tasks/")) key = "taskId";
  if (!key) return std::nullopt;
  const auto value = params->find(key);
  if (value == params->end() || !value->is_string()) return std::nullopt;
  return value->get<std::string>();
}

std::string header_safe(std::string_view value) {
  const bool plain = std::all_of(value.begin(), value.end(), [](char c) { return c >= 0x20 && c < 0x7f; }) &&
                     (value.empty() || (value.front() != ' ' && value.back() != ' ')) &&
                     !value.starts_with("=?base64?");
  if (plain) return std::string(value);
  return "=?base64?" + core::base64_encode(value) + "?=";
}

}  // namespace harness::mcp::detail::modern
