// The system prompt of a task: it teaches the runtime API, names the connected
// MCP servers (one line each, never every tool: the code discovers tools
// itself, which is what keeps the context small), lists the user's skills and
// states the rules. Pure text building, so it is unit-tested as such.
#pragma once

#include <string>
#include <vector>

#include "harness/execution/sandbox_files.hpp"

namespace harness::agent {

struct server_brief {
  std::string name;  // the prefix of its tools: "fs" in "fs__read_file"
  std::size_t tool_count = 0;
  std::vector<std::string> examples;  // a few tool names, to show the naming
};

struct prompt_inputs {
  std::vector<server_brief> servers;
  std::vector<execution::skill_brief> skills;
  int max_turns = 20;
  std::size_t observation_max_chars = 8000;
  long exec_timeout_ms = 30000;
};

std::string system_prompt(const prompt_inputs& inputs);

// Groups tool names ("fs__read_file", ...) into one brief per server, keeping
// at most `examples` names each, servers sorted by name.
std::vector<server_brief> servers_from_tool_names(const std::vector<std::string>& tool_names, std::size_t examples = 2);

}  // namespace harness::agent
