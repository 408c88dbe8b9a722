#include "face_approver.hpp"

#include <fmt/format.h>

#include "harness/core/ids.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/utf8.hpp"

namespace harness::mcp_server {

using json = nlohmann::json;
using policy::approval_answer;
using policy::approval_outcome;

namespace {

// Of the arguments shown in the message: a person reads it.
constexpr std::size_t max_shown_arguments = 2000;

approval_answer denied(std::string why) {
  return {approval_outcome::denied, std::move(why), false, {}};
}

}  // namespace

json approval_elicitation(const policy::approval_request& request) {
  std::string args = request.arguments.dump(-1, ' ', false, json::error_handler_t::replace);
  if (args.size() > max_shown_arguments) {
    args = args.substr(0, core::utf8_boundary(args, max_shown_arguments)) + " [cut]";
  }
  json scope{{"type", "string"},
             {"title", "Approve for"},
             {"description", "call: this call only; task: every call of this tool for the rest of this session"},
             {"enum", {"call", "task"}},
             {"default", "call"}};
  return {{"mode", "form"},
          {"message", fmt::format("The code wants to call the tool {} with {}. The tool policy asks first ({}). "
                                  "Accept to let the call go ahead; decline to refuse it.",
                                  request.tool, args, request.reason)},
          {"requestedSchema", {{"type", "object"}, {"properties", {{"scope", scope}}}, {"required", json::array()}}}};
}

void face_approver::set_client_capabilities(const json& capabilities) {
  // {} and {"form": {}} both offer form mode; {"url": {}} alone does not.
  auto it = capabilities.is_object() ? capabilities.find("elicitation") : capabilities.end();
  can_elicit_ = it != capabilities.end() && it->is_object() && (it->empty() || it->contains("form"));
  can_elicit_url_ = it != capabilities.end() && it->is_object() && it->contains("url");
}

boost::asio::awaitable<std::optional<std::string>> face_approver::elicit_url(std::string url, std::string message) {
  if (!can_elicit_url_ || !send_) co_return std::nullopt;
  if (budget_.refusal(requests_.in_flight(), "this session")) co_return std::nullopt;
  json params = {{"mode", "url"},
                 {"elicitationId", core::make_id("elicit_")},
                 {"url", std::move(url)},
                 {"message", std::move(message)}};
  const auto started = clock_.steady_now();
  std::string method = "elicitation/create";  // a named local: GCC 12
  auto reply = co_await requests_.ask(std::move(method), std::move(params), send_, started + timeout_);
  budget_.spent(clock_.steady_now() - started);
  const auto& response = reply.response;
  if (!response || !response->contains("result") || !(*response)["result"].is_object()) co_return std::nullopt;
  auto action = (*response)["result"].value("action", std::string());
  core::log_info("mcp session {}: the client was asked to open a link to connect an account ({})", session_id_, action);
  co_return action;
}

boost::asio::awaitable<approval_answer> face_approver::ask(policy::approval_request request) {
  if (!can_elicit_) {
    co_return denied(
        "the tool policy asks for approval, and this MCP client declared no elicitation capability, so nobody "
        "could be asked");
  }
  if (!send_) co_return denied("the tool policy asks for approval, and no request of the client was open to ask over");
  if (auto no = budget_.refusal(requests_.in_flight(), "this session")) co_return denied(*no);
  const std::string tool = request.tool;
  auto params = approval_elicitation(request);
  const auto started = clock_.steady_now();
  const auto deadline = started + timeout_;
  std::string method = "elicitation/create";  // a named local: GCC 12 and temporaries in co_await
  auto reply = co_await requests_.ask(std::move(method), std::move(params), send_, deadline);
  budget_.spent(clock_.steady_now() - started);
  const auto& response = reply.response;
  approval_answer answer;
  if (!response && reply.cancelled) {
    answer = {approval_outcome::cancelled, "the block ended before the client answered", false, {}};
  } else if (!response) {
    answer = {approval_outcome::timed_out,
              fmt::format("the MCP client did not answer within {} ms", timeout_.count()),
              false,
              {}};
  } else if (!response->contains("result") || !(*response)["result"].is_object()) {
    const json& error = response->value("error", json::object());
    answer = denied("the MCP client could not ask: " +
                    (error.is_object() ? error.value("message", std::string("an error")) : std::string("an error")));
  } else {
    const json& result = (*response)["result"];
    const std::string action = result.value("action", std::string());
    const json& content = result.value("content", json::object());
    if (action == "accept") {
      const bool for_task = content.is_object() && content.value("scope", json()) == "task";
      answer = {approval_outcome::approved, {}, for_task, key_id_};
    } else if (action == "decline") {
      answer = {approval_outcome::denied, "the user declined", false, key_id_};
    } else {
      answer = {approval_outcome::denied, "the user dismissed the request", false, key_id_};
    }
  }
  core::log_info("mcp session {}: the call of {} was {} through elicitation{}", session_id_, tool,
                 policy::to_string(answer.outcome), key_id_.empty() ? "" : " (key " + key_id_ + ")");
  co_return answer;
}

boost::asio::awaitable<std::optional<json>> face_approver::elicit(json params) {
  if (!can_elicit_ || !send_) co_return std::nullopt;  // nobody to ask: the client answers alone
  if (budget_.refusal(requests_.in_flight(), "this session")) co_return json{{"action", "decline"}};  // past the bounds
  const auto started = clock_.steady_now();
  const auto deadline = started + timeout_;
  std::string method = "elicitation/create";  // a named local: GCC 12
  auto reply = co_await requests_.ask(std::move(method), std::move(params), send_, deadline);
  budget_.spent(clock_.steady_now() - started);
  auto& response = reply.response;
  if (!response || !response->contains("result") || !(*response)["result"].is_object()) co_return std::nullopt;
  core::log_info("mcp session {}: an upstream server's elicitation was answered by the client ({})", session_id_,
                 (*response)["result"].value("action", std::string("?")));
  co_return std::move((*response)["result"]);
}

}  // namespace harness::mcp_server
