// Helpers for the MCP tests: run a coroutine to completion on a fresh
// io_context, find the npm servers and the fault server script, and wait
// (bounded) for a process to be gone.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <string>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
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

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
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

// A process that has exited (or is a zombie no one reaps: in a container PID 1 may not).
inline bool process_gone(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), {});
  const auto close = text.rfind(')');
  return text.empty() || (close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z');
}

// Polls (bounded: 10 s) until the process is gone: a SIGKILL takes effect soon, not at once.
inline bool wait_until_gone(boost::asio::io_context& ctx, int pid) {
  return run(ctx, [&]() -> boost::asio::awaitable<bool> {
    boost::asio::steady_timer timer(ctx);
    for (int i = 0; i < 200 && !process_gone(pid); ++i) {
      timer.expires_after(std::chrono::milliseconds(50));
      co_await timer.async_wait(boost::asio::use_awaitable);
    }
    co_return process_gone(pid);
  }());
}

inline client_limits test_limits() {
  client_limits limits;
  limits.request_timeout = std::chrono::seconds(20);
  limits.startup_timeout = std::chrono::seconds(30);
  limits.max_message_bytes = 1024 * 1024;
  limits.restart_backoff_min = std::chrono::milliseconds(100);
  return limits;
}

// For tests of failures that must come at once: with a 10-minute request timeout, a
// call that waited for its deadline instead would hang the test until ctest's
// timeout rather than pass. Messages are capped at 1 MiB, as in test_limits().
inline client_limits patient_limits() {
  auto limits = test_limits();
  limits.request_timeout = std::chrono::minutes(10);
  limits.max_request_time = std::chrono::minutes(10);
  return limits;
}

}  // namespace harness::mcp::testing
