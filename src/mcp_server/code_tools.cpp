#include "code_tools.hpp"

#include "task_tool.hpp"

#include <fmt/format.h>

#include "harness/bridge/tool_gateway.hpp"
#include "harness/core/utf8.hpp"
#include "harness/mcp_server/py_signature.hpp"
#include "harness/mcp_server/ts_signature.hpp"

namespace harness::mcp_server {
namespace {

using json = nlohmann::json;

constexpr std::size_t default_search_limit = 10;
constexpr std::size_t max_search_limit = 50;
constexpr std::size_t max_describe_names = 20;
constexpr std::size_t max_query_chars = 1000;
constexpr std::size_t search_description_chars = 200;

json annotations(const char* title, bool read_only, bool open_world) {
  return {{"title", title},
          {"readOnlyHint", read_only},
          {"destructiveHint", !read_only},
          {"idempotentHint", read_only},
          {"openWorldHint", open_world}};
}

json object_schema(json properties, json required) {
  return {{"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}};
}

// The first sentence (or line) of a description, at most `cap` characters.
std::string first_sentence(const std::string& text, std::size_t cap) {
  std::size_t end = text.size();
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' || (text[i] == '.' && (i + 1 == text.size() || text[i + 1] == ' '))) {
      end = text[i] == '.' ? i + 1 : i;
      break;
    }
  }
  return text.substr(0, core::utf8_boundary(text, std::min(end, cap)));  // never half a UTF-8 sequence
}

std::string string_or_empty(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// execute_code's entry. In the stateless era (2026-07-28) a call runs in a
// fresh sandbox unless it names a session handle from open_session; the
// handle is mirrored into the Mcp-Param-Session header (x-mcp-header), so a
// load balancer can send a session's calls to the replica that holds it.
json execute_definition(bool stateless) {
  const char* state_words =
      stateless ? "Without session, each call runs in a fresh sandbox; to keep top-level variables between calls, "
                  "open_session and pass its handle as session (reset: true starts that session afresh). "
                : "Top-level variables persist between calls of this session; reset: true starts afresh. ";
  json properties{
      {"code", {{"type", "string"}, {"description", "JavaScript (or Python); may use await and return"}}},
      {"language",
       {{"type", "string"},
        {"enum", json::array({"javascript", "python"})},
        {"description", "the code's language (default javascript)"}}},
      {"reset", {{"type", "boolean"}, {"description", "discard this session's variables and sandbox before running"}}}};
  if (stateless) {
    properties["session"] = {{"type", "string"},
                             {"description", "a handle from open_session: run in that session's sandbox"},
                             {"x-mcp-header", "Session"}};
  }
  return {{"name", execute_tool_name},
          {"title", "Execute code"},
          {"description",
           fmt::format(
               "Runs JavaScript (the body of an async function) in a sandbox with no network. Call tools with "
               "`await callMCPTool(name, args)`; find them with `await list_mcp_tools(query)` and "
               "`await get_mcp_tool_details(name)` or with search_tools; `await readMCPResource(link)` reads a "
               "resource_link a tool returned. `return` a JSON value to see it; console.log output is returned too. "
               "{}The user's skills are in /skills (files saved there are kept), scratch files go in /workspace. "
               "language: \"python\" runs Python 3 instead (numpy and pandas included): the same helpers as "
               "coroutines, `await call_mcp_tool(name, args)`, `await list_mcp_tools(query)`, "
               "`await get_mcp_tool_details(name)`; a session keeps the language of its first call (reset: true to "
               "change it).",
               state_words)},
          {"inputSchema", object_schema(std::move(properties), {"code"})},
          {"outputSchema", object_schema({{"ok", {{"type", "boolean"}}},
                                          {"result", json::object()},
                                          {"error", {{"type", "object"}}},
                                          {"logs", {{"type", "array"}}},
                                          {"toolCalls", {{"type", "array"}}},
                                          {"saved", {{"type", "object"}}},
                                          {"note", {{"type", "string"}}}},
                                         {"ok", "logs", "toolCalls"})},
          {"annotations", annotations("Execute code", false, true)}};
}

// open_session and close_session: the stateless era's REPL state.
json session_tools() {
  json handle = {{"type", "string"}, {"description", "the handle open_session returned"}};
  json open{{"name", open_session_tool_name},
            {"title", "Open a session"},
            {"description",
             "Opens a sandbox session whose top-level variables, imports and functions persist between "
             "execute_code calls that pass its handle as session. It ends with close_session, or after a while "
             "unused. Only you (this user and key) can use the handle."},
            {"inputSchema", object_schema(json::object(), json::array())},
            {"outputSchema", object_schema({{"session", {{"type", "string"}}}}, {"session"})},
            {"annotations", annotations("Open a session", false, false)}};
  json close{{"name", close_session_tool_name},
             {"title", "Close a session"},
             {"description", "Ends a session from open_session: its sandbox and variables are discarded."},
             {"inputSchema", object_schema({{"session", handle}}, {"session"})},
             {"outputSchema", object_schema({{"closed", {{"type", "boolean"}}}}, {"closed"})},
             {"annotations", annotations("Close a session", false, false)}};
  return json::array({std::move(open), std::move(close)});
}

}  // namespace

json tool_result(std::string text, json structured, bool is_error) {
  json out{{"content", json::array({{{"type", "text"}, {"text", std::move(text)}}})}, {"isError", is_error}};
  if (!structured.is_null()) out["structuredContent"] = std::move(structured);
  return out;
}

json tool_error(std::string message) {
  return tool_result(std::move(message), nullptr, true);
}

json tool_definitions(bool stateless, bool run_task) {
  json tool_entry = object_schema(
      {{"name", {{"type", "string"}}}, {"signature", {{"type", "string"}}}, {"description", {{"type", "string"}}}},
      {"name", "signature", "description"});
  json search{
      {"name", search_tool_name},
      {"title", "Search tools"},
      {"description",
       "Finds the MCP tools that code run by execute_code can call, ranked by the words of the query in their "
       "names and descriptions. Each comes with a one-line TypeScript signature; describe_tools gives the full "
       "declaration."},
      {"inputSchema",
       object_schema(
           {{"query",
             {{"type", "string"}, {"description", "words to look for, e.g. \"read file\"; empty lists every tool"}}},
            {"limit",
             {{"type", "integer"},
              {"minimum", 1},
              {"maximum", max_search_limit},
              {"description", "most tools to return (default 10)"}}}},
           {"query"})},
      {"outputSchema", object_schema({{"tools", {{"type", "array"}, {"items", tool_entry}}}}, {"tools"})},
      {"annotations", annotations("Search tools", true, false)}};
  json describe{
      {"name", describe_tool_name},
      {"title", "Describe tools"},
      {"description",
       "TypeScript declarations of MCP tools by name (as search_tools gives them): their arguments and, where the "
       "tool declares it, the shape of what callMCPTool returns. language: \"python\" gives Python stubs "
       "(TypedDict) for code run with execute_code's language python."},
      {"inputSchema",
       object_schema(
           {{"names",
             {{"type", "array"}, {"items", {{"type", "string"}}}, {"minItems", 1}, {"maxItems", max_describe_names}}},
            {"language",
             {{"type", "string"},
              {"enum", json::array({"typescript", "python"})},
              {"description", "typescript (default) or python stubs"}}}},
           {"names"})},
      {"outputSchema",
       object_schema({{"declarations",
                       {{"type", "array"},
                        {"items", object_schema({{"name", {{"type", "string"}}}, {"declaration", {{"type", "string"}}}},
                                                {"name", "declaration"})}}},
                      {"unknown", {{"type", "array"}, {"items", {{"type", "string"}}}}}},
                     {"declarations", "unknown"})},
      {"annotations", annotations("Describe tools", true, false)}};
  json execute = execute_definition(stateless);
  json tools = json::array({std::move(search), std::move(describe), std::move(execute)});
  if (stateless) {
    for (auto& tool : session_tools()) tools.push_back(std::move(tool));
  }
  if (run_task) tools.push_back(run_task_definition());
  return tools;
}

std::string instructions(bool stateless) {
  const char* state = stateless ? "Each execute_code call starts from a fresh sandbox unless you pass a session "
                                  "handle from open_session, whose variables persist until close_session. "
                                : "Variables persist between execute_code calls of this session. ";
  return std::string(
             "Work by writing code. 1. search_tools {query} finds the MCP tools you can call. 2. describe_tools "
             "{names} "
             "gives their TypeScript declarations. 3. execute_code {code} runs JavaScript in a sandbox: call tools "
             "with "
             "`await callMCPTool(\"server__tool\", args)`, filter and join their results in code, and `return` only "
             "what "
             "you need. ") +
         state +
         "Personal data in tool results (emails, phone numbers, card numbers...) arrives as tokens like [EMAIL_1]: "
         "pass them to tools unchanged and the real values are restored there. Save reusable code as a skill in "
         "/skills/<name>/ with a SKILL.md.";
}

boost::asio::awaitable<json> search_tools(bridge::tool_gateway& tools, const json& args) {
  auto query_it = args.find("query");
  if (query_it != args.end() && !query_it->is_string()) co_return tool_error("query must be a string");
  std::string query = query_it != args.end() ? query_it->get<std::string>() : std::string();
  if (query.size() > max_query_chars) {
    co_return tool_error(fmt::format("query is {} characters; at most {}", query.size(), max_query_chars));
  }
  std::size_t limit = default_search_limit;
  if (auto it = args.find("limit"); it != args.end()) {
    if (!it->is_number_integer() || it->get<long long>() < 1 ||
        it->get<long long>() > static_cast<long long>(max_search_limit)) {
      co_return tool_error(fmt::format("limit must be an integer from 1 to {}", max_search_limit));
    }
    limit = it->get<std::size_t>();
  }
  co_await tools.ready();
  auto found = co_await tools.list_tools(query);
  if (!found) co_return tool_error("the tools cannot be listed: " + found.error().describe());
  json entries = json::array();
  std::string text;
  for (const auto& tool : *found) {
    if (entries.size() >= limit) break;
    std::string name = string_or_empty(tool, "name");
    auto details = co_await tools.tool_details(name);
    const json& described = details ? *details : tool;
    std::string signature = ts_signature_line(described);
    std::string description = first_sentence(string_or_empty(tool, "description"), search_description_chars);
    text += signature + "\n";
    if (!description.empty()) text += "  " + description + "\n";
    entries.push_back({{"name", std::move(name)}, {"signature", std::move(signature)}, {"description", description}});
  }
  std::size_t total = found->size();
  std::string head = entries.empty() ? (query.empty() ? "No tools are connected right now."
                                                      : "No tool matches \"" + query + "\"; try other words.")
                                     : fmt::format(
                                           "{} of {} matching tool(s); describe_tools gives the full "
                                           "declarations, callMCPTool(name, args) calls one.\n",
                                           entries.size(), total);
  co_return tool_result(head + text, json{{"tools", std::move(entries)}}, false);
}

boost::asio::awaitable<json> describe_tools(bridge::tool_gateway& tools, const json& args) {
  auto names_it = args.find("names");
  if (names_it == args.end() || !names_it->is_array() || names_it->empty() || names_it->size() > max_describe_names) {
    co_return tool_error(fmt::format("names must be an array of 1 to {} tool names", max_describe_names));
  }
  for (const auto& n : *names_it) {
    if (!n.is_string()) co_return tool_error("names must hold strings (tool names as search_tools gives them)");
  }
  auto language_it = args.find("language");
  if (language_it != args.end() &&
      (!language_it->is_string() || (*language_it != "typescript" && *language_it != "python"))) {
    co_return tool_error("language must be \"typescript\" or \"python\"");
  }
  // Python stubs for code run with execute_code's language "python".
  const bool python = language_it != args.end() && *language_it == "python";
  co_await tools.ready();
  json declarations = json::array();
  json unknown = json::array();
  std::string text;
  for (const auto& n : *names_it) {
    std::string name = n.get<std::string>();
    auto details = co_await tools.tool_details(name);
    if (!details) {
      unknown.push_back(name);
      text +=
          (python ? "# no tool named " : "// no tool named ") + name.substr(0, 200) + " (search_tools lists them)\n\n";
      continue;
    }
    std::string declaration = python ? py_declaration(*details) : ts_declaration(*details);
    text += declaration + "\n\n";
    declarations.push_back({{"name", std::move(name)}, {"declaration", std::move(declaration)}});
  }
  text += python ? "Call one with: await call_mcp_tool(\"<name>\", args)"
                 : "Call one with: await callMCPTool(\"<name>\", args)";
  co_return tool_result(std::move(text),
                        json{{"declarations", std::move(declarations)}, {"unknown", std::move(unknown)}}, false);
}

}  // namespace harness::mcp_server
