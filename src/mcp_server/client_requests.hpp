// Requests the face sends to its MCP client (elicitation/create), and the
// client's responses matched back to them by id. A request goes out on the
// stream of the client's own request in hand (its notify: the POST's SSE
// stream, or stdout), and waits for the response, which arrives as a message
// of its own (a POST of its own, or a line). Single-threaded, on the
// session's executor.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/async_signal.hpp"

namespace harness::mcp_server {

class client_requests {
 public:
  using send_fn = std::function<void(nlohmann::json)>;
  // `deadline`s of ask() are points on `clock`, which must outlive this.
  client_requests(const boost::asio::any_io_executor& executor, core::clock& clock)
      : executor_(executor), clock_(clock) {}

  struct reply {
    std::optional<nlohmann::json> response;  // the client's message ({"result"} or {"error"})
    bool cancelled = false;                  // cancel_waiting() or close() ended the wait
  };

  // Sends `method` with `params` through `send` and waits for the client's
  // response until `deadline`, cancel_waiting() or close(); a wait that ends
  // without one tells the client so (notifications/cancelled).
  boost::asio::awaitable<reply> ask(std::string method, nlohmann::json params, send_fn send,
                                    core::steady_time deadline);

  // Ends the waits in progress; later requests are sent as usual.
  void cancel_waiting();
  std::size_t in_flight() const { return waiting_.size(); }

  // A response from the client: true when it answers a request of ours (and
  // was handed to it), false for an id we never sent or that stopped waiting.
  bool deliver(const nlohmann::json& message);

  // Ends every wait (the session is closing).
  void close();

 private:
  struct waiting {
    waiting(const boost::asio::any_io_executor& executor, core::clock& clock) : wake(executor, clock) {}
    core::async_signal wake;
    std::optional<nlohmann::json> response;
    bool cancelled = false;
  };

  boost::asio::any_io_executor executor_;
  core::clock& clock_;
  std::uint64_t next_id_ = 0;
  std::map<std::string, std::shared_ptr<waiting>> waiting_;  // by the id's JSON text
  bool closed_ = false;
};

}  // namespace harness::mcp_server
