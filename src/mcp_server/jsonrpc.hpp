// JSON-RPC 2.0 as MCP uses it: the error codes and the two answer shapes.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

namespace harness::mcp_server::jsonrpc {

constexpr int parse_error = -32700;
constexpr int invalid_request = -32600;
constexpr int method_not_found = -32601;
constexpr int invalid_params = -32602;
constexpr int internal_error = -32603;
// Server-defined (the -32000..-32099 range): what the Streamable HTTP
// transport answers for a missing or unknown session, as the SDK's server does.
constexpr int bad_session = -32000;
constexpr int session_not_found = -32001;

nlohmann::json result(const nlohmann::json& id, nlohmann::json value);
nlohmann::json error(const nlohmann::json& id, int code, std::string_view message);
nlohmann::json notification(std::string_view method, nlohmann::json params);

}  // namespace harness::mcp_server::jsonrpc
