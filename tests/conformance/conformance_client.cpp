// conformance_client <url>: the MCP client the conformance suite drives
// (`conformance client --command build/tests/conformance/conformance_client`).
// It connects over Streamable HTTP, lists the tools, calls add_numbers with
// {a: 5, b: 3} when offered and every tool that needs no arguments, then
// closes the session. Exit status 0 when every step worked.
#include <iostream>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include "client.hpp"
#include "harness/net/http_client.hpp"
#include "harness/core/logging.hpp"

namespace asio = boost::asio;
using nlohmann::json;
using namespace harness::mcp;

namespace {

asio::awaitable<int> run_client(std::shared_ptr<client> c) {
  auto info = co_await c->connect();
  if (!info) {
    std::cerr << "initialize failed: " << info.error().describe() << "\n";
    co_return 1;
  }
  std::cerr << "connected: protocol " << info->protocol_version << ", server " << info->info.dump() << "\n";
  int failures = 0;
  auto tools = co_await c->list_tools();
  if (!tools) {
    std::cerr << "tools/list failed: " << tools.error().describe() << "\n";
    failures++;
  } else {
    for (const auto& tool : *tools) {
      const std::string name = tool["name"].get<std::string>();
      json arguments = json::object();
      if (name == "add_numbers") {
        arguments = {{"a", 5}, {"b", 3}};
      } else if (tool.contains("inputSchema") && tool["inputSchema"].contains("required") &&
                 !tool["inputSchema"]["required"].empty()) {
        continue;  // we would have to guess its arguments
      }
      auto called = co_await c->call_tool(name, arguments);
      if (!called) {
        std::cerr << name << " failed: " << called.error().describe() << "\n";
        failures++;
      } else {
        std::cerr << name << " -> " << called->dump() << "\n";
      }
    }
  }
  co_await c->close();
  co_return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: conformance_client <server-url>\n";
    return 2;
  }
  harness::core::init_logging({});
  server_config config;
  config.name = "conformance";
  config.kind = transport_kind::http;
  config.url = argv[argc - 1];
  client_limits limits;
  limits.request_timeout = std::chrono::seconds(10);
  limits.max_request_time = std::chrono::seconds(20);
  asio::io_context ctx;
  auto c = create_client(ctx.get_executor(), create_http_transport(ctx.get_executor(), config, limits, net::create_http_client(net::start_engine())), limits);
  auto result = asio::co_spawn(ctx, run_client(c), asio::use_future);
  ctx.run();
  return result.get();
}
