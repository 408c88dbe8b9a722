// What the sandbox's helpers reach on the host. The bridge turns `call`
// frames into these calls; the MCP tool registry implements them for real.
#pragma once

#include <chrono>
#include <string>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"

namespace harness::bridge {

class tool_gateway {
 public:
  virtual ~tool_gateway() = default;
  // Returns once the tools can be listed (servers still starting have settled).
  virtual boost::asio::awaitable<void> ready() = 0;
  // list_mcp_tools(query?): [{name, description}]
  virtual boost::asio::awaitable<result<nlohmann::json>> list_tools(std::string query) = 0;
  // get_mcp_tool_details(name): {name, description, inputSchema, outputSchema?}
  virtual boost::asio::awaitable<result<nlohmann::json>> tool_details(std::string name) = 0;
  // callMCPTool(name, args): the tool's result; a tool error is an error.
  // The call ends by `not_after` (the block that makes it must end soon
  // after), whatever progress the tool reports; a server's own shorter
  // request timeout still applies.
  virtual boost::asio::awaitable<result<nlohmann::json>> call_tool(std::string name, nlohmann::json args,
                                                                   std::chrono::steady_clock::time_point not_after) = 0;
};

// Where data crosses the sandbox boundary: tool results on their way in
// (the PII censor tokenizes them) and tool arguments on their way out (it
// restores the original values the tool may get), and whether a call may
// leave at all (the tool policy). One per task or session. The identity
// filter changes nothing and admits every call.
class data_filter {
 public:
  virtual ~data_filter() = default;
  virtual nlohmann::json into_sandbox(nlohmann::json value) = 0;
  // The arguments of a call of `tool`.
  virtual nlohmann::json out_of_sandbox(nlohmann::json value, std::string_view tool) = 0;
  // Before each call of `tool`: ok, or the error the code gets instead of the call.
  virtual boost::asio::awaitable<status> admit_call(std::string tool) {
    (void)tool;
    co_return status{};
  }
};

class identity_filter final : public data_filter {
 public:
  nlohmann::json into_sandbox(nlohmann::json value) override { return value; }
  nlohmann::json out_of_sandbox(nlohmann::json value, std::string_view) override { return value; }
};

}  // namespace harness::bridge
