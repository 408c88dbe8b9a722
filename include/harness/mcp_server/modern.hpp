// MCP 2026-07-28, "the new era": no initialize and no protocol sessions.
// Every request names its protocol version and the client's capabilities
// in params._meta, the server describes itself through server/discover, and
// over HTTP the headers MCP-Protocol-Version, Mcp-Method and Mcp-Name repeat
// what the body says. The face serves this era beside the 2025 one on the
// same endpoint, decided per request (docs/MCP_SERVER.md, "Two eras"); this
// header holds what the face and both transports share to tell the eras
// apart and to check a new-era request before it is handled.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace harness::mcp_server::modern {

// The _meta keys of 2026-07-28 (basic/index, "_meta").
inline constexpr const char* version_key = "io.modelcontextprotocol/protocolVersion";
inline constexpr const char* capabilities_key = "io.modelcontextprotocol/clientCapabilities";
inline constexpr const char* client_info_key = "io.modelcontextprotocol/clientInfo";
inline constexpr const char* server_info_key = "io.modelcontextprotocol/serverInfo";

// The Tasks extension (io.modelcontextprotocol/tasks): a tools/call may answer
// `resultType: "task"`, polled with tasks/get.
inline constexpr const char* tasks_extension = "io.modelcontextprotocol/tasks";

// The error codes 2026-07-28 added.
inline constexpr int header_mismatch = -32020;      // an MCP header is missing or differs from the body
inline constexpr int missing_capability = -32021;   // the request lacks a client capability it needs
inline constexpr int unsupported_version = -32022;  // data: {supported, requested}

// The new-era versions this server speaks, newest first.
const std::vector<std::string>& versions();
bool is_modern_version(std::string_view version);

// The version a message names in params._meta; nullopt when it names none,
// which makes it a message of the 2025 era (initialize, sessions).
std::optional<std::string> claimed_version(const nlohmann::json& message);

// Checks a new-era message's envelope: a version (-32602 when absent) this
// server speaks (-32022 otherwise, with the supported versions) and the
// client's capabilities (-32602 when absent). nullopt when fine, else the
// error answer.
std::optional<nlohmann::json> check_envelope(const nlohmann::json& message);

// The client capabilities a new-era request declares ({} when none).
nlohmann::json client_capabilities(const nlohmann::json& message);

// Whether the request's client capabilities declare `extension` (under "extensions").
bool declares_extension(const nlohmann::json& message, std::string_view extension);

// The HTTP headers of a new-era POST that must agree with its body.
struct request_headers {
  std::optional<std::string> protocol_version;  // MCP-Protocol-Version
  std::optional<std::string> method;            // Mcp-Method
  std::optional<std::string> name;              // Mcp-Name
  std::optional<std::string> session;           // Mcp-Param-Session (execute_code's `session`, see code_tools.cpp)
};

// -32020 when a header is missing or says something else than the body:
// MCP-Protocol-Version and Mcp-Method always, Mcp-Name for tools/call and
// prompts/get (params.name), resources/read (params.uri) and the Tasks
// extension's tasks/get, tasks/update and tasks/cancel (params.taskId), and
// Mcp-Param-Session when sent. Values may come base64-wrapped
// ("=?base64?...?="), as the transport allows for text that is not
// header-safe. nullopt when they agree.
std::optional<nlohmann::json> check_headers(const nlohmann::json& message, const request_headers& headers);

// A header value as sent: plain, or base64-wrapped; nullopt when the
// wrapping is malformed.
std::optional<std::string> header_value(std::string_view raw);

}  // namespace harness::mcp_server::modern
