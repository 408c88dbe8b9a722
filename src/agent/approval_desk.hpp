// The approvals one task waits for: the approver its data filter asks when
// the tool policy says "ask" for a call. Each request waits, on the
// manager's clock, until someone decides it (POST /tasks/{id}/approvals/{id}),
// APPROVAL_TIMEOUT_MS passes (a timeout denies) or the task ends. The hooks
// tell the task when one is asked for and when one is decided (its events
// and status). Single-threaded, on the agent's executor.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "harness/agent/agent_manager.hpp"
#include "harness/core/clock.hpp"
#include "harness/policy/approval_budget.hpp"
#include "harness/policy/approver.hpp"

namespace harness::agent {

class approval_desk final : public policy::approver {
 public:
  struct hooks {
    // How the arguments are shown (the task censors what the code wrote itself).
    std::function<nlohmann::json(const nlohmann::json&)> shown;
    std::function<void(const approval_view&)> requested;
    // After it left the pending list.
    std::function<void(const approval_view&, const policy::approval_answer&)> decided;
  };

  // `clock` must outlive the desk.
  approval_desk(core::clock& clock, std::chrono::milliseconds timeout, hooks on);

  boost::asio::awaitable<policy::approval_answer> ask(policy::approval_request request) override;

  // Errors: approval_not_found, approval_decided.
  result<approval_view> decide(const std::string& id, const approval_decision& decision);

  // Ends every wait as cancelled (the task is ending); later asks are cancelled at once.
  void close(std::string why);
  // Ends the waits in progress as cancelled (their block ended); later asks wait as usual.
  void cancel_waiting(std::string why) override;

  // An upstream server's elicitation during a call of the task: nobody is
  // asked for a form, and a task's person is not there to fill one in, so
  // it is declined (never answered with defaults on the person's behalf).
  boost::asio::awaitable<std::optional<nlohmann::json>> elicit(nlohmann::json params) override;

  std::vector<approval_view> pending() const;
  // Whether a request still waits for its decision.
  bool waiting() const;

 private:
  struct entry {
    approval_view view;
    std::unique_ptr<core::timer> timer;
    std::optional<policy::approval_answer> answer{};
  };

  core::clock& clock_;
  std::chrono::milliseconds timeout_;
  hooks on_;
  std::vector<std::shared_ptr<entry>> pending_;  // in the order asked
  // Recently decided ids and how, for a clear answer to a second decision.
  std::deque<std::pair<std::string, std::string>> decided_;
  bool closed_ = false;
  std::string closed_why_;
  policy::approval_budget budget_;  // how much more the task may wait
};

}  // namespace harness::agent
