// The tools of code mode: their tools/list entries, and the two that
// only read the upstream tool catalogue (execute_code lives in the session,
// which owns the sandbox). Answers are CallToolResult objects; a bad argument
// is a tool error (isError) the model can read and fix, not a protocol error.
#pragma once

#include <string>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

namespace harness::bridge {
class tool_gateway;
}

namespace harness::mcp_server {

inline constexpr const char* search_tool_name = "search_tools";
inline constexpr const char* describe_tool_name = "describe_tools";
inline constexpr const char* execute_tool_name = "execute_code";
// The stateless era's (2026-07-28) two more: REPL state under a handle.
inline constexpr const char* open_session_tool_name = "open_session";
inline constexpr const char* close_session_tool_name = "close_session";

// The "tools" array of tools/list; `stateless`: of the 2026-07-28 era, with
// open_session, close_session and execute_code's `session`.
// `run_task`: with the agent's run_task (task_tool.hpp), when an LLM is configured.
nlohmann::json tool_definitions(bool stateless = false, bool run_task = false);

// The "instructions" of initialize (server/discover when `stateless`): how to use the tools.
std::string instructions(bool stateless = false);

// {query, limit?}: upstream tools ranked by the words of the query, each
// with a one-line signature.
boost::asio::awaitable<nlohmann::json> search_tools(bridge::tool_gateway& tools, const nlohmann::json& args);

// {names}: a TypeScript declaration of each (ts_signature.hpp).
boost::asio::awaitable<nlohmann::json> describe_tools(bridge::tool_gateway& tools, const nlohmann::json& args);

// A CallToolResult: `text` as the one text item, `structured` (when not
// null) as structuredContent, isError as given.
nlohmann::json tool_result(std::string text, nlohmann::json structured, bool is_error);

// A tool error the model reads: isError with the message as text.
nlohmann::json tool_error(std::string message);

}  // namespace harness::mcp_server
