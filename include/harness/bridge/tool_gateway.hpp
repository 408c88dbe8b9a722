// What the sandbox's helpers reach on the host. The bridge turns `call`
// frames into these calls; the MCP tool registry implements them for real.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"
#include "harness/core/errors.hpp"
#include "harness/telemetry/span.hpp"

namespace harness::bridge {

// Answers an elicitation/create that an upstream server sends while a call
// runs: the result to send back, or nullopt (the client then answers with
// the schema's defaults, or declines).
using elicit_fn = std::function<boost::asio::awaitable<std::optional<nlohmann::json>>(nlohmann::json params)>;

class tool_gateway {
 public:
  virtual ~tool_gateway() = default;
  // The gateway as `user_id` reaches the tools: with user-scoped MCP
  // servers, that user's instances. Null: this gateway is the same for
  // every user (use it as it is).
  virtual std::shared_ptr<tool_gateway> acting_for(const std::string& user_id) {
    (void)user_id;
    return nullptr;
  }
  // Returns once the tools can be listed (servers still starting have settled).
  virtual boost::asio::awaitable<void> ready() = 0;
  // Makes ready what a call of `tool` needs that is not the code's doing:
  // the user's own instance of a user-scoped server, started on first use.
  // The bridge holds the block's time limit meanwhile. Default: nothing.
  virtual boost::asio::awaitable<void> prepare_call(std::string tool) {
    (void)tool;
    co_return;
  }
  // list_mcp_tools(query?): [{name, description}]
  virtual boost::asio::awaitable<result<nlohmann::json>> list_tools(std::string query) = 0;
  // get_mcp_tool_details(name): {name, description, inputSchema, outputSchema?}
  virtual boost::asio::awaitable<result<nlohmann::json>> tool_details(std::string name) = 0;
  // callMCPTool(name, args): the tool's result; a tool error is an error.
  // The call ends by `not_after` (the block that makes it must end soon
  // after), whatever progress the tool reports; a server's own shorter
  // request timeout still applies. `elicit` answers the server's
  // elicitations during the call (empty: nobody). `trace`: the call's span,
  // which the MCP request's own span hangs below (and whose trace it sends on).
  virtual boost::asio::awaitable<result<nlohmann::json>> call_tool(std::string name, nlohmann::json args,
                                                                   std::chrono::steady_clock::time_point not_after,
                                                                   elicit_fn elicit, telemetry::span_parent trace) = 0;
  // readMCPResource(link | server, uri): the resource's contents, read from
  // `server` by `not_after`. A gateway without resources says so.
  virtual boost::asio::awaitable<result<nlohmann::json>> read_resource(
      std::string server, std::string uri, std::chrono::steady_clock::time_point not_after) {
    (void)server, (void)uri, (void)not_after;
    co_return make_error(core::errc::invalid_argument, "reading MCP resources is not offered here");
  }
  // The acting user's connection to the user-scoped server `server` (whose
  // call failed with mcp_needs_authorization), started when not connected:
  // {"server", "state", "authorizationUrl"?, ...} as GET /connections shows it.
  virtual boost::asio::awaitable<result<nlohmann::json>> connect(std::string server) {
    (void)server;
    co_return make_error(core::errc::invalid_argument, "connecting accounts is not offered here");
  }
};

// Stops the running block's deadline while held (a call waits for a person's
// approval). Holds nest; the deadline moves on by the time held when the
// last one is released, and so does the limit of the block's tool calls.
class deadline_pause {
 public:
  virtual ~deadline_pause() = default;
  virtual void hold() = 0;
  virtual void release() = 0;
};

// One call the code wants to make, as the tool policy sees it before the call.
struct call_admission {
  std::string tool;
  const nlohmann::json& arguments;  // as the code wrote them (tokens)
  std::string_view code;            // the block that makes the call
  deadline_pause& block;            // held while an approval is awaited
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
  // Before each call: ok, or the error the code gets instead of the call.
  // May wait (for an approval), holding `call.block` meanwhile.
  virtual boost::asio::awaitable<status> admit_call(call_admission call) {
    (void)call;
    co_return status{};
  }
  // The block has ended: what its calls still wait for (approvals) ends too.
  virtual void block_ended() {}
  // An elicitation of the server behind `tool` during a call: the answer
  // from whoever can give one (holding `block` while waiting), or nullopt.
  virtual boost::asio::awaitable<std::optional<nlohmann::json>> elicit(nlohmann::json params, std::string tool,
                                                                       std::shared_ptr<deadline_pause> block) {
    (void)params, (void)tool, (void)block;
    co_return std::nullopt;
  }
};

class identity_filter final : public data_filter {
 public:
  nlohmann::json into_sandbox(nlohmann::json value) override { return value; }
  nlohmann::json out_of_sandbox(nlohmann::json value, std::string_view) override { return value; }
};

}  // namespace harness::bridge
