// Fakes behind code mode's sessions: a tool catalogue of two upstream tools
// and an execution service that answers (or holds) blocks as a test says.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "harness/bridge/tool_gateway.hpp"
#include "harness/core/async_event.hpp"
#include "harness/core/errors.hpp"
#include "harness/execution/execution_service.hpp"

namespace harness::mcp_server::fakes {

namespace asio = boost::asio;
using json = nlohmann::json;

// Two upstream tools, one with an output schema.
class fake_tools final : public bridge::tool_gateway {
 public:
  asio::awaitable<void> ready() override { co_return; }
  asio::awaitable<result<json>> list_tools(std::string query) override {
    json all = json::array({{{"name", "fs__read_file"}, {"description", "Read a file. Returns its text."}},
                            {{"name", "memory__search"}, {"description", "Search the graph"}}});
    if (query.empty()) co_return all;
    json some = json::array();
    for (const auto& t : all) {
      if (t["name"].get<std::string>().find(query) != std::string::npos) some.push_back(t);
    }
    co_return some;
  }
  asio::awaitable<result<json>> tool_details(std::string name) override {
    if (name == "fs__read_file") {
      co_return json{{"name", name},
                     {"description", "Read a file."},
                     {"inputSchema",
                      {{"type", "object"}, {"properties", {{"path", {{"type", "string"}}}}}, {"required", {"path"}}}},
                     {"outputSchema", {{"type", "object"}, {"properties", {{"content", {{"type", "string"}}}}}}}};
    }
    if (name == "memory__search") {
      co_return json{{"name", name}, {"description", "Search the graph"}, {"inputSchema", {{"type", "object"}}}};
    }
    co_return make_error(core::errc::invalid_argument, "no such tool");
  }
  asio::awaitable<result<json>> call_tool(std::string, json, std::chrono::steady_clock::time_point, bridge::elicit_fn,
                                          telemetry::span_parent) override {
    co_return json(nullptr);
  }
  // Every user-scoped server waits for its user, with this link.
  asio::awaitable<result<json>> connect(std::string server) override {
    connected.push_back(server);
    co_return json{{"server", server},
                   {"state", "needs_authorization"},
                   {"authorizationUrl", "https://auth.example/authorize?state=s1"}};
  }
  std::vector<std::string> connected;  // the servers connect() was asked for
};

// Answers each block with what the test set; a block can be held until the
// session is ended (as a kill ends a running block) or the test releases it.
class fake_execution final : public execution::execution_service {
 public:
  explicit fake_execution(asio::io_context& io) : release(io.get_executor()) {}

  asio::awaitable<result<execution::execute_outcome>> execute(execution::execute_request request) override {
    requests.push_back(request);
    if (request.stop) {
      request.stop->arm([this] {
        killed = true;
        release.set();
      });
    }
    if (hold) {
      co_await release.wait();
      if (killed) {
        execution::execute_outcome stopped;
        bridge::fail(stopped.block, bridge::failure_kind::sandbox, "the sandbox was stopped");
        stopped.warm = true;
        stopped.ended = true;
        co_return stopped;
      }
    }
    if (next_error) co_return *next_error;
    co_return answer;
  }
  asio::awaitable<status> end_session(std::string user_id, std::string session_id) override {
    ended.emplace_back(user_id + "/" + session_id);
    killed = true;
    release.set();
    co_return status{};
  }
  asio::awaitable<void> shutdown() override { co_return; }
  std::size_t session_count() const override { return 0; }

  // {"sum": 2}, one log line and one tool call, in a warm sandbox that goes on.
  execution::execute_outcome answer = [] {
    execution::execute_outcome out;
    out.block.ok = true;
    out.block.value = {{"sum", 2}};
    out.block.logs = {{"info", "adding [EMAIL_1]"}};
    out.block.tool_calls = {{.name = "fs__read_file", .ms = 1.5, .ok = true}};
    out.warm = true;
    return out;
  }();
  std::optional<error> next_error;
  bool hold = false;
  bool killed = false;
  core::async_event release;
  std::vector<execution::execute_request> requests;
  std::vector<std::string> ended;
};

inline json rpc_request(int id, std::string method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", std::move(method)}, {"params", std::move(params)}};
}

}  // namespace harness::mcp_server::fakes
