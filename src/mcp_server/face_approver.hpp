// The approver of one MCP face session: a call the tool policy asks about is
// put to the MCP client as an elicitation (elicitation/create, form mode),
// on the stream of the execute_code request in hand, when the client
// declared that capability at initialize. Without it, or without a stream to
// ask over, the call is denied with a message that says why. The client's
// answer: accept (with "scope": "call" or "task") approves, decline and
// cancel deny; no answer within APPROVAL_TIMEOUT_MS denies.
#pragma once

#include <chrono>
#include <string>

#include <boost/asio/any_io_executor.hpp>

#include "client_requests.hpp"
#include "harness/policy/approval_budget.hpp"
#include "harness/policy/approver.hpp"

namespace harness::mcp_server {

class face_approver final : public policy::approver {
 public:
  face_approver(const boost::asio::any_io_executor& executor, core::clock& clock, std::chrono::milliseconds timeout,
                std::string session_id, std::string key_id)
      : clock_(clock),
        requests_(executor, clock),
        timeout_(timeout),
        session_id_(std::move(session_id)),
        key_id_(std::move(key_id)) {}

  // From the client's initialize: its capabilities.
  void set_client_capabilities(const nlohmann::json& capabilities);
  bool can_elicit() const { return can_elicit_; }
  // The client declared URL-mode elicitation (2025-11-25): it can open a link for its user.
  bool can_elicit_url() const { return can_elicit_url_; }

  // Where to ask: the execute_code request in hand (empty between requests).
  void set_channel(client_requests::send_fn send) { send_ = std::move(send); }

  // A response from the client; true when it answered one of our requests.
  bool deliver(const nlohmann::json& message) { return requests_.deliver(message); }

  // The session is closing: waits end, later asks are denied.
  void close() { requests_.close(); }

  // The block ended: its waits end (denied), later asks are put as usual.
  void cancel_waiting(std::string why) override {
    (void)why;
    requests_.cancel_waiting();
  }

  boost::asio::awaitable<policy::approval_answer> ask(policy::approval_request request) override;

  // An upstream server's elicitation, passed on to the client as it came
  // (tokenized by the session's filter); the client's result, or nullopt
  // when it cannot be asked, does not answer in time, or answers an error.
  boost::asio::awaitable<std::optional<nlohmann::json>> elicit(nlohmann::json params) override;

  // Asks the client (URL mode) to offer its user `url`, such as the link that
  // connects their account to a user-scoped server: the user's action
  // ("accept": they opened it, "decline", "cancel"), or nullopt when the
  // client cannot be asked or does not answer in time.
  boost::asio::awaitable<std::optional<std::string>> elicit_url(std::string url, std::string message);

 private:
  core::clock& clock_;
  client_requests requests_;
  std::chrono::milliseconds timeout_;
  std::string session_id_;
  std::string key_id_;
  bool can_elicit_ = false;
  bool can_elicit_url_ = false;
  client_requests::send_fn send_;
  policy::approval_budget budget_{timeout_};  // how much more the session may wait
};

// The elicitation/create params for `request` (form mode: a message and a
// flat schema with one optional field, the scope).
nlohmann::json approval_elicitation(const policy::approval_request& request);

}  // namespace harness::mcp_server
