#include "harness/agent/prompt.hpp"

#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace harness::agent {
namespace {

// Why it reads like this: models follow short, concrete rules with one worked
// example far better than long prose, and every line here is paid for on every
// turn of every task.
constexpr const char* runtime_api =
    R"(Solve the task by writing JavaScript for the tool `execute_code` {"code": "..."}; it returns what the code printed and returned.
Node.js 20, inside an async function (top-level `await` and `return` work); top-level variables persist into your next block. No network.
Globals:
  await list_mcp_tools(query?) -> [{name, description}]
  await get_mcp_tool_details(name) -> {name, description, inputSchema, outputSchema?}
  await callMCPTool(name, args) -> the tool's result (JSON parsed where possible); throws on a tool error
  await readMCPResource(link) -> the contents {uri, mimeType, text|blob} of a resource_link a tool returned
  fs = require('fs/promises')
Tool names are `<server>__<tool>`; check a tool's inputSchema before calling it.
Writable: /workspace (this task), /skills (your code, kept across tasks).

Example:
  const text = await callMCPTool('fs__read_text_file', {path: '/data/a.txt'});
  return text.split('\n').length;
)";

constexpr const char* skills_root = "/skills/";

constexpr const char* rules = R"(Rules:
- Move data between tools in code; print or return only what you need (counts, samples, the answer): it all comes back to you.
- Tokens like [EMAIL_1] stand for hidden values: pass them to tools as they are (they arrive as the real data); never guess them.
- Save reusable code in /skills/<name>/: SKILL.md (front matter `name:`, `description:`, then usage) and the code, e.g. index.js.
- Finish by replying with the answer as plain text, no tool call.
)";

}  // namespace

std::string system_prompt(const prompt_inputs& in) {
  std::string out = runtime_api;
  out += "\nMCP servers:\n";
  if (in.servers.empty()) out += "  (none are connected right now)\n";
  for (const auto& s : in.servers) {
    out += fmt::format("  {}: {} tool{}", s.name, s.tool_count, s.tool_count == 1 ? "" : "s");
    if (!s.examples.empty()) out += fmt::format(", e.g. {}", fmt::join(s.examples, ", "));
    out += '\n';
  }
  out += "\nSkills in /skills/ (read SKILL.md, then require):\n";
  if (in.skills.empty()) out += "  (none yet)\n";
  for (const auto& s : in.skills) {
    // Paths relative to /skills/: the header names the folder once.
    std::string_view path = s.path;
    if (path.rfind(skills_root, 0) == 0) path.remove_prefix(std::string_view(skills_root).size());
    out += fmt::format("  {}: {}\n", path, s.description.empty() ? "no description" : s.description);
  }
  out += '\n';
  out += rules;
  out += fmt::format("- Limits: {} turns; {} ms per block; output over {} characters is cut.\n", in.max_turns,
                     in.exec_timeout_ms, in.observation_max_chars);
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
