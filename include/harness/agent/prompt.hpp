// The system prompt of a task: it teaches the runtime API, names the connected
// MCP servers (by name only, never their tools: the code discovers tools
// itself, which is what keeps the context small), lists the user's skills and
// states the rules. Pure text building, so it is unit-tested as such.
#pragma once

#include <string>
#include <vector>

#include "harness/execution/sandbox_files.hpp"
#include "harness/sandbox/language.hpp"

namespace harness::agent {

struct prompt_inputs {
  std::vector<std::string> servers;  // names: the prefix of their tools, "fs" in "fs__read_file"
  std::vector<execution::skill_brief> skills;
  int max_turns = 20;
  std::size_t observation_max_chars = 8000;
  long exec_timeout_ms = 30000;
  sandbox::language language = sandbox::language::javascript;  // which runtime's API it teaches
};

std::string system_prompt(const prompt_inputs& inputs);

// The servers of tool names ("fs__read_file", ...): each name once, sorted;
// a name without "__" counts as its own server.
std::vector<std::string> server_names(const std::vector<std::string>& tool_names);

}  // namespace harness::agent
