// What the client puts on the wire for an upstream server of MCP 2026-07-28
// (the "modern" era: no initialize, no sessions; every request names its
// protocol version, the client's capabilities and identity in params._meta,
// and over HTTP repeats its method and target in headers). The face speaks
// the same era from the other side (include/harness/mcp_server/modern.hpp
// holds the server's copy of these keys). Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace harness::mcp::detail::modern {

// The new-era revision this client speaks (it asks for it in server/discover).
inline constexpr const char* version = "2026-07-28";

inline constexpr const char* version_key = "io.modelcontextprotocol/protocolVersion";
inline constexpr const char* capabilities_key = "io.modelcontextprotocol/clientCapabilities";
inline constexpr const char* client_info_key = "io.modelcontextprotocol/clientInfo";
inline constexpr const char* server_info_key = "io.modelcontextprotocol/serverInfo";
inline constexpr const char* tasks_extension = "io.modelcontextprotocol/tasks";

// -32022: the server does not speak the version a request named.
inline constexpr int unsupported_version = -32022;

// Whether a negotiated protocol version is of the new era (no session, per-request _meta).
bool is_modern(std::string_view protocol_version);

// Adds the envelope every new-era request carries to params._meta: the
// version, the client's capabilities (elicitation: a person may answer input
// requests; the Tasks extension: a tool may answer with a task) and identity.
void add_envelope(nlohmann::json& params, const std::string& client_name, const std::string& client_version);

// The value of the Mcp-Name header a request carries: params.name of
// tools/call and prompts/get, params.uri of resources/read, params.taskId of
// the Tasks extension's tasks/*; nullopt for other methods.
std::optional<std::string> routing_name(const nlohmann::json& message);

// A header value as the transport allows it: the text itself when it is
// printable ASCII without leading or trailing blanks, else "=?base64?...?=".
std::string header_safe(std::string_view value);

}  // namespace harness::mcp::detail::modern
