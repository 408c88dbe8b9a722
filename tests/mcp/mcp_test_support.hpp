// Helpers for the MCP tests: run a coroutine to completion on a fresh
// io_context, and find the npm servers and the fault server script.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <future>
#include <string>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include "harness/mcp/config.hpp"

namespace harness::mcp::testing {

// Runs the awaitable on ctx until it finishes, then drains what it left (detached
// readers finishing after a close) so nothing outlives the test.
template <class T>
T run(boost::asio::io_context& ctx, boost::asio::awaitable<T> task) {
  auto future = boost::asio::co_spawn(ctx, std::move(task), boost::asio::use_future);
  while (future.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    if (ctx.run_one() == 0) ctx.restart();
  }
  return future.get();
}

inline std::string source_dir() {
  const char* dir = std::getenv("HARNESS_SOURCE_DIR");
  return dir ? dir : std::filesystem::current_path().string();
}

inline std::string npm_server(const std::string& package) {
  return source_dir() + "/servers/node_modules/@modelcontextprotocol/" + package + "/dist/index.js";
}

inline server_config node_server(const std::string& name, std::vector<std::string> args) {
  server_config config;
  config.name = name;
  config.command = "node";
  config.args = std::move(args);
  return config;
}

inline server_config fault_server(const std::string& mode) {
  return node_server("fault", {source_dir() + "/tests/mcp/fault_server.js", mode});
}

inline client_limits test_limits() {
  client_limits limits;
  limits.request_timeout = std::chrono::seconds(20);
  limits.startup_timeout = std::chrono::seconds(30);
  limits.max_message_bytes = 1024 * 1024;
  limits.restart_backoff_min = std::chrono::milliseconds(100);
  return limits;
}

}  // namespace harness::mcp::testing
