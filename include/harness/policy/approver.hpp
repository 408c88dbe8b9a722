// Who is asked when the tool policy says "ask" for a call the code makes: a
// person behind the task's API (POST /tasks/{id}/approvals/{id}), or the
// MCP client behind a face session (an elicitation). The call waits in the
// live sandbox until the answer comes; the block's deadline stops meanwhile.
#pragma once

#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

namespace harness::policy {

struct approval_request {
  std::string tool;
  nlohmann::json arguments;  // as the code wrote them: tokens, not the values they stand for
  std::string code;          // the block that makes the call
  std::string reason;        // why the policy asks: "rule 1 (mem__create_entities)"
};

enum class approval_outcome { approved, denied, timed_out, cancelled };
std::string_view to_string(approval_outcome outcome);

struct approval_answer {
  approval_outcome outcome = approval_outcome::denied;
  std::string reason;      // the approver's words, or why nobody answered
  bool for_task = false;   // approved: the same tool needs no approval for the rest of the task
  std::string decided_by;  // the API key id, "mcp-client", or empty
};

class approver {
 public:
  virtual ~approver() = default;
  // Returns once someone decided, the approval timed out, or the task ended.
  virtual boost::asio::awaitable<approval_answer> ask(approval_request request) = 0;

  // Ends the asks waiting now as cancelled (the block that made them ended);
  // later asks are put as usual.
  virtual void cancel_waiting(std::string why) { (void)why; }

  // An upstream MCP server asks for input while a call of the code runs
  // (its elicitation/create params, tokenized): the result to send back
  // ({"action", "content"?}), or nullopt when nobody here can answer.
  virtual boost::asio::awaitable<std::optional<nlohmann::json>> elicit(nlohmann::json params) {
    (void)params;
    co_return std::nullopt;
  }
};

}  // namespace harness::policy
