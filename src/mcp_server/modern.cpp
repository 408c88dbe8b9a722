#include "harness/mcp_server/modern.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "harness/core/base64.hpp"
#include "harness/mcp_server/mcp_face.hpp"
#include "jsonrpc.hpp"

namespace harness::mcp_server::modern {
namespace {

using json = nlohmann::json;

const json* meta_of(const json& message) {
  auto params = message.find("params");
  if (params == message.end() || !params->is_object()) return nullptr;
  auto meta = params->find("_meta");
  return meta != params->end() && meta->is_object() ? &*meta : nullptr;
}

json id_of(const json& message) {
  return message.is_object() ? message.value("id", json()) : json();
}

json mismatch(const json& message, std::string_view header, std::string_view body_value,
              const std::optional<std::string>& header_value) {
  json answer =
      jsonrpc::error(id_of(message), header_mismatch,
                     header_value ? fmt::format("Header mismatch: {} is '{}', the body says '{}'", header,
                                                header_value->substr(0, 200), body_value.substr(0, 200))
                                  : fmt::format("Header mismatch: {} is missing; send it with the body's value '{}'",
                                                header, body_value.substr(0, 200)));
  json data{{"header", header}, {"body", body_value.substr(0, 200)}};
  data["value"] = header_value ? json(header_value->substr(0, 200)) : json();
  answer["error"]["data"] = {{"mismatch", std::move(data)}};
  return answer;
}

std::string_view string_param(const json& message, const char* key) {
  auto params = message.find("params");
  if (params == message.end() || !params->is_object()) return {};
  auto it = params->find(key);
  return it != params->end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>())
                                                : std::string_view();
}

}  // namespace

const std::vector<std::string>& versions() {
  static const std::vector<std::string> list = {"2026-07-28"};
  return list;
}

bool is_modern_version(std::string_view version) {
  const auto& list = versions();
  return std::find(list.begin(), list.end(), version) != list.end();
}

std::optional<std::string> claimed_version(const json& message) {
  if (!message.is_object()) return std::nullopt;
  const json* meta = meta_of(message);
  if (!meta) return std::nullopt;
  auto version = meta->find(version_key);
  if (version == meta->end()) return std::nullopt;
  // A key with another type still claims the new era; check_envelope says what is wrong.
  return version->is_string() ? version->get<std::string>() : std::string();
}

std::optional<json> check_envelope(const json& message) {
  const auto version = claimed_version(message);
  if (!version) {
    json answer = jsonrpc::error(
        id_of(message), jsonrpc::invalid_params,
        fmt::format("params._meta[\"{}\"] is required in MCP 2026-07-28 (with \"{}\"); a client of the 2025 "
                    "era starts with initialize and sends no such MCP-Protocol-Version before it",
                    version_key, capabilities_key));
    answer["error"]["data"] = {{"envelope", {{"key", version_key}, {"problem", "missing"}}}};
    return answer;
  }
  if (!is_modern_version(*version)) {
    // The answer lists every version this server speaks, new era first: a
    // client of the 2025 era may still initialize.
    std::vector<std::string> supported = versions();
    for (const auto& v : supported_versions()) supported.push_back(v);
    json answer = jsonrpc::error(
        id_of(message), unsupported_version,
        fmt::format("Unsupported protocol version '{}': this server speaks {} (and {} through initialize)",
                    version.value_or("").substr(0, 40), fmt::join(versions(), ", "),
                    fmt::join(supported_versions(), ", ")));
    answer["error"]["data"] = {{"supported", std::move(supported)}, {"requested", version.value_or("")}};
    return answer;
  }
  const json* meta = meta_of(message);
  auto capabilities = meta->find(capabilities_key);
  if (capabilities == meta->end() || !capabilities->is_object()) {
    json answer = jsonrpc::error(id_of(message), jsonrpc::invalid_params,
                                 fmt::format("params._meta[\"{}\"] (an object; {{}} for none) is required in {}",
                                             capabilities_key, version->substr(0, 40)));
    answer["error"]["data"] = {{"envelope", {{"key", capabilities_key}, {"problem", "missing"}}}};
    return answer;
  }
  return std::nullopt;
}

json client_capabilities(const json& message) {
  const json* meta = meta_of(message);
  if (!meta) return json::object();
  auto capabilities = meta->find(capabilities_key);
  return capabilities != meta->end() && capabilities->is_object() ? *capabilities : json::object();
}

bool declares_extension(const json& message, std::string_view extension) {
  const json capabilities = client_capabilities(message);
  auto extensions = capabilities.find("extensions");
  return extensions != capabilities.end() && extensions->is_object() && extensions->contains(extension);
}

std::optional<std::string> header_value(std::string_view raw) {
  constexpr std::string_view open = "=?base64?", close = "?=";
  if (!raw.starts_with(open) || !raw.ends_with(close) || raw.size() < open.size() + close.size()) {
    return std::string(raw);
  }
  return core::base64_decode(raw.substr(open.size(), raw.size() - open.size() - close.size()));
}

std::optional<json> check_headers(const json& message, const request_headers& headers) {
  const auto version = claimed_version(message).value_or("");
  auto decoded = [](const std::optional<std::string>& raw) -> std::optional<std::string> {
    if (!raw) return std::nullopt;
    return header_value(*raw).value_or("(malformed base64)");
  };
  if (headers.protocol_version != version) {
    return mismatch(message, "MCP-Protocol-Version", version, headers.protocol_version);
  }
  // Read without value(), which throws on a "method" that is not text.
  const auto method_it = message.is_object() ? message.find("method") : message.end();
  const std::string method =
      method_it != message.end() && method_it->is_string() ? method_it->get<std::string>() : std::string();
  if (headers.method != method) return mismatch(message, "Mcp-Method", method, headers.method);
  std::optional<std::string_view> name;
  if (method == "tools/call" || method == "prompts/get") name = string_param(message, "name");
  if (method == "resources/read") name = string_param(message, "uri");
  if (method.starts_with("tasks/")) name = string_param(message, "taskId");  // the Tasks extension's routing header
  if (name && decoded(headers.name) != *name) return mismatch(message, "Mcp-Name", *name, decoded(headers.name));
  if (headers.session && method == "tools/call") {
    // Sent by a client that mirrors execute_code's `session` (x-mcp-header),
    // so that a load balancer can route by it: it must be the body's.
    const json* params = message.contains("params") ? &message["params"] : nullptr;
    const json args = params && params->is_object() ? params->value("arguments", json::object()) : json::object();
    const std::string session =
        args.is_object() && args.contains("session") && args["session"].is_string() ? args["session"] : "";
    if (decoded(headers.session) != session) {
      return mismatch(message, "Mcp-Param-Session", session, decoded(headers.session));
    }
  }
  return std::nullopt;
}

}  // namespace harness::mcp_server::modern
