// In MCP 2026-07-28 the first answer to a request may not be its result:
//  - `resultType: "input_required"` asks for input first (elicitations, in
//    `inputRequests`); the client sends the same request again with
//    `inputResponses` and the `requestState` the server gave (Multi Round-Trip
//    Requests);
//  - `resultType: "task"` (the Tasks extension, declared by this client) says
//    a tools/call runs on as a task: polled with tasks/get until it ends, given
//    input with tasks/update, and cancelled with tasks/cancel when the call's
//    deadline passes first.
// The input goes to whoever answers elicitations for the call today
// (call_deadline::elicit: a person behind the face or the task's approval
// desk), else the schema's defaults or a decline.
#pragma once

#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/clock.hpp"
#include "harness/core/error.hpp"
#include "harness/mcp/config.hpp"

namespace harness::mcp::detail {

// One JSON-RPC request of the client, with its deadlines (client.cpp).
class request_sender {
 public:
  virtual ~request_sender() = default;
  virtual boost::asio::awaitable<result<nlohmann::json>> send(const std::string& method, nlohmann::json params,
                                                              call_deadline deadline) = 0;
};

// Whether a new-era answer needs finish_modern_call to become a result.
bool continues(const nlohmann::json& answer);

// Follows `first` (the answer to `method` with `params`) to the request's
// result: input rounds (at most 8), then a task polled until `end` (the
// call's hard deadline; the time spent waiting for a person moves it on).
// The result comes back without its resultType.
boost::asio::awaitable<result<nlohmann::json>> finish_modern_call(request_sender& sender, core::clock& clock,
                                                                  boost::asio::any_io_executor executor,
                                                                  std::string method, nlohmann::json params,
                                                                  call_deadline deadline, nlohmann::json first,
                                                                  core::steady_time end);

}  // namespace harness::mcp::detail
