// The tool gateway of a server with no MCP servers connected: discovery finds
// nothing and every call says why.
#pragma once

#include "harness/bridge/tool_gateway.hpp"

namespace harness::app {

class no_tools final : public bridge::tool_gateway {
 public:
  boost::asio::awaitable<result<nlohmann::json>> list_tools(std::string) override {
    co_return nlohmann::json::array();
  }
  boost::asio::awaitable<result<nlohmann::json>> tool_details(std::string name) override {
    co_return unavailable(name);
  }
  boost::asio::awaitable<result<nlohmann::json>> call_tool(std::string name, nlohmann::json) override {
    co_return unavailable(name);
  }

 private:
  static error unavailable(const std::string& name) {
    return make_error("unknown_tool", "no MCP server is connected, so there is no tool '" + name + "'",
                      "configure servers in MCP_CONFIG");
  }
};

}  // namespace harness::app
