#include <charconv>
#include <variant>

#include <fmt/format.h>

#include "acting_user.hpp"
#include "harness/agent/agent_manager.hpp"
#include "harness/http/api.hpp"
#include "harness/http/errors.hpp"
#include "harness/http/services.hpp"
#include "sse.hpp"
#include "task_json.hpp"
#include "validation.hpp"

namespace harness::http {
namespace {

using json = nlohmann::json;

http_response agent_unavailable(const services& svc) {
  auto response = error_response(http::errc::agent_unavailable,
                                 svc.agent_unavailable.empty() ? "the agent is not configured" : svc.agent_unavailable);
  response.set_header("Retry-After", "60");
  return response;
}

std::optional<std::string> query_value(const request_context& context, const std::string& name) {
  auto it = context.request.query.find(name);
  if (it == context.request.query.end()) return std::nullopt;
  return it->second;
}

// The task `task_id` when the caller may see it, else the answer to send
// instead. A ?userId= the caller may not act for is 403; a task of a user the
// caller may not act for (or of another user than the one named) is the same
// 404 as a task that does not exist, so task ids cannot be probed.
using view_or_answer = std::variant<agent::task_view, http_response>;
boost::asio::awaitable<view_or_answer> owned_view(const request_context& context, agent::agent_manager& agent,
                                                  const std::string& task_id, bool transcript) {
  auto named = named_query_user(context);
  if (auto* answer = std::get_if<http_response>(&named)) co_return std::move(*answer);
  const auto& user = std::get<std::optional<std::string>>(named);
  auto view = co_await agent.view(task_id, transcript);
  if (!view) co_return error_response(view.error());
  if (!auth::may_act_for(context.caller, view->user_id) || (user && *user != view->user_id)) {
    co_return error_response(agent::no_such_task(task_id));
  }
  co_return std::move(*view);
}

std::optional<std::int64_t> parse_int(const std::string& text) {
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// "<createdMs>:<taskId>", the nextCursor of a page.
std::optional<std::pair<std::int64_t, std::string>> parse_cursor(const std::string& text) {
  auto colon = text.find(':');
  if (colon == std::string::npos || colon + 1 == text.size()) return std::nullopt;
  auto ms = parse_int(text.substr(0, colon));
  if (!ms || *ms == 0) return std::nullopt;
  return std::pair{*ms, text.substr(colon + 1)};
}

}  // namespace

boost::asio::awaitable<std::optional<http_response>> check_task_owner(const request_context& context,
                                                                      const std::string& task_id) {
  auto agent = context.svc.agent;  // keeps it alive across the await
  if (!agent) {
    // No task records to check against: only the open caller may read workspaces then.
    if (context.caller.key_id.empty()) co_return std::nullopt;
    co_return error_response(agent::no_such_task(task_id));
  }
  const bool transcript = false;
  auto found = co_await owned_view(context, *agent, task_id, transcript);
  if (auto* answer = std::get_if<http_response>(&found)) co_return std::move(*answer);
  co_return std::nullopt;
}

boost::asio::awaitable<http_response> handle_post_task(const request_context& context) {
  const auto& body = context.body;
  if (auto bad = check_known_fields(body, {"userId", "task", "conversationId", "mode", "restorePii", "language"})) {
    co_return *bad;
  }
  if (auto bad = check_optional_choice(body, "language", {"javascript", "python"})) co_return *bad;
  auto user = body_user(context);
  if (auto* answer = std::get_if<http_response>(&user)) co_return std::move(*answer);
  if (auto bad = check_text(body, "task", context.svc.limits.task_max_chars)) co_return *bad;
  if (body.contains("conversationId")) {
    if (auto bad = check_user_id(body, "conversationId")) co_return *bad;
  }
  if (auto bad = check_optional_choice(body, "mode", {"sync", "async", "stream"})) co_return *bad;
  if (auto bad = check_optional_bool(body, "restorePii")) co_return *bad;
  auto agent = context.svc.agent;  // keeps it alive across the await
  // Only starting or continuing a task needs the LLM; the other task routes serve the store.
  if (!agent || !context.svc.agent_unavailable.empty()) co_return agent_unavailable(context.svc);

  agent::task_request request;
  request.user_id = std::get<std::string>(std::move(user));
  request.key_id = context.caller.key_id;
  request.admin = context.caller.admin;
  request.task = body["task"].get<std::string>();
  if (body.contains("conversationId")) request.conversation_id = body["conversationId"].get<std::string>();
  request.mode = body.value("mode", std::string("sync"));
  request.restore_pii = body.value("restorePii", true);
  if (body.contains("language")) request.language = sandbox::parse_language(body["language"].get<std::string>());
  request.trace = context.request.trace;
  auto ticket = co_await agent->submit(request);
  if (!ticket) co_return error_response(ticket.error());

  if (request.mode == "async") {
    co_return json_response(
        202, {{"taskId", ticket->task_id},
              {"conversationId", ticket->conversation_id},
              {"status", to_string(ticket->status)},
              {"links", {{"task", "/tasks/" + ticket->task_id}, {"events", "/tasks/" + ticket->task_id + "/events"}}}});
  }
  if (request.mode == "stream") {
    auto events = co_await agent->events(ticket->task_id, 0);
    if (!events) co_return error_response(events.error());
    auto response = sse_response(std::move(*events));
    response.set_header("X-Task-Id", ticket->task_id);
    co_return response;
  }
  auto done = co_await agent->wait(ticket->task_id);
  if (!done) co_return error_response(done.error());
  co_return json_response(200, task_view_json(*done));
}

boost::asio::awaitable<http_response> handle_list_tasks(const request_context& context) {
  auto agent = context.svc.agent;  // keeps it alive across the await
  if (!agent) co_return agent_unavailable(context.svc);
  auto named = named_query_user(context);
  if (auto* answer = std::get_if<http_response>(&named)) co_return std::move(*answer);
  store::task_query query;
  if (const auto& user = std::get<std::optional<std::string>>(named)) {
    query.user_id = *user;
  } else if (!context.caller.admin) {
    // A user key lists its user's tasks; one made for several users must name one.
    auto resolved = auth::resolve_user(context.caller, std::nullopt);
    if (!resolved) co_return error_response(resolved.error());
    query.user_id = std::move(*resolved);
  }  // else an admin (or the open caller) sees every user's tasks
  if (auto status = query_value(context, "status"); status && !status->empty()) {
    query.status = store::task_status_from_string(*status);
    // A status no task can have matches none.
    if (!query.status) co_return json_response(200, {{"tasks", json::array()}, {"nextCursor", nullptr}});
  }
  if (auto limit = query_value(context, "limit")) {
    auto n = parse_int(*limit);
    if (!n || *n < 1 || *n > 500) co_return error_response(http::errc::invalid_request, "'limit' must be 1-500");
    query.limit = static_cast<std::size_t>(*n);
  }
  if (auto before = query_value(context, "before"); before && !before->empty()) {
    auto cursor = parse_cursor(*before);
    if (!cursor)
      co_return error_response(http::errc::invalid_request,
                               "'before' must be the nextCursor of an earlier page (<createdMs>:<taskId>)");
    query.before_ms = cursor->first;
    query.before_id = std::move(cursor->second);
  }
  // One more than the page: whether it is there says if another page follows
  // (limit is at most 500, under the store's own cap).
  const std::size_t wanted = query.limit;
  query.limit = wanted + 1;
  auto listed = co_await agent->list(query);
  if (!listed) co_return error_response(listed.error());
  const bool more = listed->size() > wanted;
  if (more) listed->resize(wanted);
  json tasks = json::array();
  for (const auto& view : *listed) tasks.push_back(task_view_json(view));
  // The cursor is where the next page starts: the last row's (createdMs, taskId).
  json next = nullptr;
  if (more) next = fmt::format("{}:{}", listed->back().created_ms, listed->back().task_id);
  co_return json_response(200, {{"tasks", std::move(tasks)}, {"nextCursor", std::move(next)}});
}

boost::asio::awaitable<http_response> handle_get_task(const request_context& context) {
  auto agent = context.svc.agent;  // keeps it alive across the await
  if (!agent) co_return agent_unavailable(context.svc);
  const bool transcript = query_value(context, "transcript").value_or("true") != "false";
  const auto& id = context.params.at("id");
  auto found = co_await owned_view(context, *agent, id, transcript);
  if (auto* answer = std::get_if<http_response>(&found)) co_return std::move(*answer);
  co_return json_response(200, task_view_json(std::get<agent::task_view>(found)));
}

boost::asio::awaitable<http_response> handle_task_events(const request_context& context) {
  auto agent = context.svc.agent;  // keeps it alive across the await
  if (!agent) co_return agent_unavailable(context.svc);
  const auto& id = context.params.at("id");
  auto refused = co_await check_task_owner(context, id);
  if (refused) co_return std::move(*refused);
  // Resume after the last event the client saw: the standard header, or ?after= for clients that cannot set it.
  std::string after_text(context.request.header("Last-Event-ID").value_or(""));
  if (after_text.empty()) after_text = query_value(context, "after").value_or("0");
  auto after = parse_int(after_text);
  if (!after)
    co_return error_response(http::errc::invalid_request, "Last-Event-ID (or ?after=) must be an event number");
  auto events = co_await agent->events(id, *after);
  if (!events) co_return error_response(events.error());
  co_return sse_response(std::move(*events));
}

boost::asio::awaitable<http_response> handle_cancel_task(const request_context& context) {
  auto agent = context.svc.agent;  // keeps it alive across the await
  if (!agent) co_return agent_unavailable(context.svc);
  const auto& id = context.params.at("id");
  auto refused = co_await check_task_owner(context, id);
  if (refused) co_return std::move(*refused);
  auto cancelled = co_await agent->cancel(id);
  if (!cancelled) co_return error_response(cancelled.error());
  co_return json_response(202, cancel_json(*cancelled));
}

}  // namespace harness::http

namespace harness::http {

boost::asio::awaitable<http_response> handle_decide_approval(const request_context& context) {
  const auto& body = context.body;
  if (auto bad = check_known_fields(body, {"decision", "reason", "scope"})) co_return *bad;
  if (!body.contains("decision")) {
    co_return error_response(http::errc::invalid_request, "'decision' is required: \"approve\" or \"deny\"");
  }
  if (auto bad = check_optional_choice(body, "decision", {"approve", "deny"})) co_return *bad;
  if (auto bad = check_optional_choice(body, "scope", {"call", "task"})) co_return *bad;
  if (body.contains("reason")) {
    if (auto bad = check_text(body, "reason", 2000)) co_return *bad;
  }
  auto agent = context.svc.agent;  // keeps it alive across the await
  if (!agent) co_return agent_unavailable(context.svc);
  const auto& id = context.params.at("id");
  // The task's user (or an admin) decides; anyone else is told there is no such task.
  auto refused = co_await check_task_owner(context, id);
  if (refused) co_return std::move(*refused);
  agent::approval_decision decision;
  decision.approve = body["decision"] == "approve";
  decision.reason = body.value("reason", std::string());
  decision.for_task = body.value("scope", std::string("call")) == "task";
  decision.key_id = context.caller.key_id;
  if (decision.for_task && !decision.approve) {
    co_return error_response(make_error(http::errc::invalid_request, "\"scope\": \"task\" goes with \"approve\" only",
                                        "deny each call on its own, or leave out scope"));
  }
  auto decided = co_await agent->decide(id, context.params.at("approvalId"), decision);
  if (!decided) co_return error_response(decided.error());
  co_return json_response(200, {{"taskId", id},
                                {"approvalId", decided->id},
                                {"tool", decided->tool},
                                {"decision", decision.approve ? "approved" : "denied"},
                                {"scope", decision.for_task ? "task" : "call"}});
}

}  // namespace harness::http
