#include "harness/agent/prompt.hpp"

#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace harness::agent {
namespace {

// Why it reads like this: every line is paid for on every request of every
// task (o200k tokens, measured by bench/context_bench.sh), so it states the
// API as signatures and the rules as one line each, and leaves out what the
// model finds out when it needs it: the tool catalogue (list_mcp_tools) and a
// tool's shape (its schemas). Lines are not indented: indentation costs a
// token a line.
constexpr const char* runtime_api =
    R"(Write JavaScript for `execute_code`: Node 20, async function body (await, return a value), top-level variables persist between blocks, no network.
Async globals:
list_mcp_tools(query?) -> [{name, description}]
get_mcp_tool_details(name) -> {description, inputSchema, outputSchema?}
callMCPTool(name, args) -> structuredContent, else text (parsed if JSON); throws on error
readMCPResource(link) -> a resource_link's contents
fs (fs/promises)
Writable: /workspace (this task), /skills (kept across tasks).
)";

// The same for Python (docs/architecture/python-runtime.md), as short.
constexpr const char* python_api =
    R"(Write Python for `execute_code`: Python 3.11 (numpy, pandas), async function body (await, return a value or end with an expression), top-level names persist between blocks, no network.
Async helpers:
await list_mcp_tools(query=None) -> [{name, description}]
await get_mcp_tool_details(name) -> {description, inputSchema, outputSchema?}
await call_mcp_tool(name, args) -> structuredContent, else text (parsed if JSON); raises MCPToolError
await read_mcp_resource(link) -> a resource_link's contents
Writable: /workspace (this task), /skills (kept across tasks).
)";

constexpr const char* skills_root = "/skills/";

constexpr const char* rules = R"(Rules:
- Keep data in code; return or print only what you need.
- Tokens like [EMAIL_1] stand for real values that tools receive: pass them as is, never guess them.
- Save reusable code in /skills/<name>/ with a SKILL.md (front matter name, description).
- Finish with a plain-text answer, no tool call.
)";

// A skill's description as the prompt shows it: at most
// max_prompt_description_bytes, cut at a character, on one line.
std::string brief(const std::string& description) {
  std::string out;
  for (char c : description) out.push_back(c == '\n' || c == '\r' ? ' ' : c);
  if (out.size() <= execution::max_prompt_description_bytes) return out;
  std::size_t end = execution::max_prompt_description_bytes;
  while (end > 0 && (static_cast<unsigned char>(out[end]) & 0xC0) == 0x80) --end;  // not inside a character
  out.resize(end);
  return out + "...";
}

}  // namespace

std::string system_prompt(const prompt_inputs& in) {
  const bool python = in.language == sandbox::language::python;
  std::string out = python ? python_api : runtime_api;
  // Names only: the naming rule says how to call them, list_mcp_tools what they have.
  out += "MCP servers (tools are <server>__<tool>; read a tool's schemas first): ";
  out += in.servers.empty() ? "(none are connected right now)" : fmt::to_string(fmt::join(in.servers, ", "));
  out += python ? "\nSkills in /skills/ (read SKILL.md, then import skills.<name> with - as _):\n"
                : "\nSkills in /skills/ (read SKILL.md, then require):\n";
  if (in.skills.empty()) out += "(none yet)\n";
  for (const auto& s : in.skills) {
    // Paths relative to /skills/: the header names the folder once.
    std::string_view path = s.path;
    if (path.rfind(skills_root, 0) == 0) path.remove_prefix(std::string_view(skills_root).size());
    out += fmt::format("{}: {}\n", path, s.description.empty() ? "no description" : brief(s.description));
  }
  out += rules;
  out += fmt::format("- Limits: {} turns, {} ms and {} output characters per block.\n", in.max_turns,
                     in.exec_timeout_ms, in.observation_max_chars);
  return out;
}

std::vector<std::string> server_names(const std::vector<std::string>& tool_names) {
  std::set<std::string> servers;
  for (const auto& name : tool_names) servers.insert(name.substr(0, name.find("__")));
  return {servers.begin(), servers.end()};
}

}  // namespace harness::agent
