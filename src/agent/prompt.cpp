#include "harness/agent/prompt.hpp"

#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace harness::agent {
namespace {

// Why it reads like this: models follow short, concrete rules with one worked
// example far better than long prose, and every line here is paid for on every
// turn of every task.
constexpr const char* runtime_api = R"(You solve the user's task by writing JavaScript that runs in a sandbox.
Call the tool `execute_code` with {"code": "..."}; you get back what the code printed and returned.

The code runs in Node.js 20 inside an async function: use `await` and `return` at top level.
Variables you declare at top level stay defined for your next code block (like a notebook).
There is no network. These helpers are global:
  await list_mcp_tools(query?)           -> [{name, description}]  (search by words, e.g. 'read file')
  await get_mcp_tool_details(name)       -> {name, description, inputSchema, outputSchema?}
  await callMCPTool(name, args)          -> the tool's result (parsed JSON where possible); throws on a tool error
  fs                                     -> require('fs/promises')
Writable folders: /workspace (files of this task) and /skills (your saved code, kept across tasks).
Tool names are `<server>__<tool>`. Discover the tools you need instead of guessing their arguments.

Example block:
  const tools = await list_mcp_tools('read file');
  const text = await callMCPTool('fs__read_text_file', {path: '/data/report.txt'});
  const lines = text.split('\n');
  console.log(lines.length, 'lines');
  return lines.slice(0, 3);
)";

constexpr const char* rules = R"(Rules:
- Move data between tools inside your code; print or return only what you need to see (counts, a few samples, the answer). Everything you print is sent back to you and costs context.
- Some values in tool results are replaced by tokens such as [EMAIL_1] or [PHONE_2]. Use the tokens as if they were the values: pass them to tools unchanged and they reach the tool as the real data. Never try to guess what is behind a token.
- Save code worth reusing as a skill: a folder /skills/<name>/ with SKILL.md (front matter `name:` and `description:`, then how to use it) and the code (e.g. index.js, loaded with require('/skills/<name>/index.js')).
- When you have the answer, reply with it as plain text and no tool call; that ends the task.
)";

}  // namespace

std::string system_prompt(const prompt_inputs& in) {
  std::string out = runtime_api;
  out += "\nConnected MCP servers (list their tools with list_mcp_tools):\n";
  if (in.servers.empty()) out += "  (none are connected right now)\n";
  for (const auto& s : in.servers) {
    out += fmt::format("  {}: {} tool{}", s.name, s.tool_count, s.tool_count == 1 ? "" : "s");
    if (!s.examples.empty()) out += fmt::format(", e.g. {}", fmt::join(s.examples, ", "));
    out += '\n';
  }
  out += "\nSkills you can require (read their SKILL.md first):\n";
  if (in.skills.empty()) out += "  (none yet)\n";
  for (const auto& s : in.skills) {
    out += fmt::format("  {} ({}): {}\n", s.name, s.path, s.description.empty() ? "no description" : s.description);
  }
  out += '\n';
  out += rules;
  out += fmt::format(
      "- Limits: {} turns per task; one code block may run {} ms; output longer than {} characters is cut "
      "(the full text is saved under /workspace/observations/).\n",
      in.max_turns, in.exec_timeout_ms, in.observation_max_chars);
  return out;
}

std::vector<server_brief> servers_from_tool_names(const std::vector<std::string>& tool_names, std::size_t examples) {
  std::map<std::string, server_brief> by_server;
  for (const auto& name : tool_names) {
    auto split = name.find("__");
    std::string server = split == std::string::npos ? name : name.substr(0, split);
    auto& brief = by_server[server];
    brief.name = server;
    ++brief.tool_count;
    if (brief.examples.size() < examples) brief.examples.push_back(name);
  }
  std::vector<server_brief> out;
  for (auto& [name, brief] : by_server) out.push_back(std::move(brief));
  return out;
}

}  // namespace harness::agent
