// A tool_gateway with a few canned tools, and a data_filter that marks what
// crosses the boundary, so tests can see both directions were filtered.
#pragma once

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/bridge/tool_gateway.hpp"
#include "harness/mcp/errors.hpp"

namespace harness::bridge::testing {

class fake_tools final : public tool_gateway {
 public:
  int in_flight = 0;
  int max_in_flight = 0;
  std::vector<nlohmann::json> received_args;
  std::vector<std::chrono::steady_clock::time_point> received_deadlines;

  boost::asio::awaitable<void> ready() override { co_return; }
  boost::asio::awaitable<result<nlohmann::json>> list_tools(std::string query) override {
    co_return nlohmann::json::array({{{"name", "t__echo"}, {"description", "echo, query=" + query}}});
  }
  boost::asio::awaitable<result<nlohmann::json>> tool_details(std::string name) override {
    if (name != "t__echo") co_return make_error(harness::mcp::errc::unknown_tool, "no tool named " + name);
    co_return nlohmann::json{{"name", name}, {"inputSchema", {{"type", "object"}}}};
  }
  boost::asio::awaitable<result<nlohmann::json>> call_tool(std::string name, nlohmann::json args,
                                                           std::chrono::steady_clock::time_point not_after,
                                                           bridge::elicit_fn, telemetry::span_parent) override {
    received_args.push_back(args);
    received_deadlines.push_back(not_after);
    if (name == "t__fail") co_return make_error(harness::mcp::errc::tool_error, "the tool failed");
    ++in_flight;
    max_in_flight = std::max(max_in_flight, in_flight);
    if (name == "t__slow") {
      boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, std::chrono::milliseconds(50));
      co_await timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    }
    --in_flight;
    co_return nlohmann::json{{"echo", args}};
  }
};

class marking_filter final : public data_filter {
 public:
  nlohmann::json into_sandbox(nlohmann::json value) override { return {{"filtered_in", value}}; }
  nlohmann::json out_of_sandbox(nlohmann::json value, std::string_view) override {
    value["filtered_out"] = true;
    return value;
  }
};

}  // namespace harness::bridge::testing
