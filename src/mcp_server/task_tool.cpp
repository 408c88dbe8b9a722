#include "task_tool.hpp"

#include <fmt/format.h>

#include <boost/asio/this_coro.hpp>

#include "code_tools.hpp"
#include "harness/agent/agent_manager.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/execution/execution_service.hpp"
#include "harness/policy/approver.hpp"

namespace harness::mcp_server {
namespace {

namespace asio = boost::asio;
using json = nlohmann::json;

constexpr std::size_t max_task_chars = 100000;
constexpr auto event_wait = std::chrono::milliseconds(1000);

std::string text(const json& data, const char* key) {
  auto it = data.find(key);
  return it != data.end() && it->is_string() ? it->get<std::string>().substr(0, 200) : std::string();
}

// One line of progress for an event of the run; empty for those not worth a line.
std::string describe(const store::event_record& event) {
  const json& d = event.data.is_object() ? event.data : json::object();
  if (event.type == "llm_start") {
    return d.contains("turn") ? fmt::format("turn {}: the model is working", d["turn"].dump()) : "the model is working";
  }
  if (event.type == "code") return "running a code block";
  if (event.type == "tool_call") return "called " + text(d, "tool");
  if (event.type == "approval_requested") return "waiting for approval of " + text(d, "tool");
  if (event.type == "approval_decided") return text(d, "tool") + ": " + text(d, "decision");
  if (event.type == "final") return "finished";
  if (event.type == "error") return "error: " + text(d, "message");
  return {};
}

// Puts an approval the run waits for to the caller, and decides it with their
// answer. Runs beside the run's event loop (several may be open at once); the
// run's end or cancel ends its wait (approver->cancel_waiting).
asio::awaitable<void> ask_caller(std::shared_ptr<agent::agent_manager> agent, std::string task_id, json data,
                                 task_run_context context) {
  if (!context.approver) co_return;
  policy::approval_request request;
  request.tool = text(data, "tool");
  request.arguments = data.value("arguments", json::object());
  request.code = data.value("code", std::string());
  request.reason = text(data, "reason");
  auto answer = co_await context.approver->ask(std::move(request));
  if (answer.outcome == policy::approval_outcome::cancelled) co_return;  // the call ended meanwhile
  agent::approval_decision decision;
  decision.approve = answer.outcome == policy::approval_outcome::approved;
  decision.reason = answer.reason;
  decision.for_task = answer.for_task;
  decision.key_id = context.key_id;
  const std::string approval_id = text(data, "approvalId");  // a local: GCC 12 and temporaries in co_await
  auto decided = co_await agent->decide(task_id, approval_id, std::move(decision));
  // Decided elsewhere meanwhile (the dashboard, a timeout): the other decision stands.
  if (!decided) core::log_info("mcp: an approval of task {} was not taken: {}", task_id, decided.error().message);
}

json outcome(const agent::task_view& view) {
  const bool ok = view.status == store::task_status::succeeded;
  json structured{{"taskId", view.task_id},
                  {"conversationId", view.conversation_id},
                  {"status", std::string(store::to_string(view.status))},
                  {"result", view.result},
                  {"error", view.error},
                  {"turns", view.turns},
                  {"inputTokens", view.input_tokens},
                  {"outputTokens", view.output_tokens}};
  std::string answer;
  if (view.result.is_string()) {
    answer = view.result.get<std::string>();
  } else if (!view.result.is_null()) {
    answer = view.result.dump();
  }
  if (!ok) {
    const std::string why = view.error.is_object() ? view.error.value("message", std::string()) : std::string();
    answer = fmt::format("the task ended {}{}", store::to_string(view.status), why.empty() ? "" : ": " + why);
  }
  return tool_result(std::move(answer), std::move(structured), !ok);
}

}  // namespace

json run_task_definition() {
  json input{{"type", "object"},
             {"properties",
              {{"task", {{"type", "string"}, {"description", "What to do, in words, as for POST /task"}}},
               {"conversationId",
                {{"type", "string"}, {"description", "Continue this conversation (from an earlier run's answer)"}}}}},
             {"required", {"task"}}};
  json output{{"type", "object"},
              {"properties",
               {{"taskId", {{"type", "string"}}},
                {"conversationId", {{"type", "string"}}},
                {"status", {{"type", "string"}}},
                {"result", json::object()},
                {"error", json::object()},
                {"turns", {{"type", "integer"}}},
                {"inputTokens", {{"type", "integer"}}},
                {"outputTokens", {{"type", "integer"}}}}},
              {"required", {"taskId", "status"}}};
  return {{"name", run_task_tool_name},
          {"title", "Run a task with the server's agent"},
          {"description",
           "Hands a whole task to this server's own agent (its LLM writes and runs the code against the same "
           "tools), and answers with its final answer. Use it for a job you would rather delegate than script; "
           "use execute_code to run code you write yourself. Progress comes as notifications; approvals the "
           "task needs are put to you."},
          {"inputSchema", std::move(input)},
          {"outputSchema", std::move(output)},
          {"annotations", {{"readOnlyHint", false}, {"openWorldHint", true}}}};
}

asio::awaitable<json> run_task(std::shared_ptr<agent::agent_manager> agent, const json& args,
                               task_run_context context) {
  auto task_it = args.find("task");
  if (task_it == args.end() || !task_it->is_string() || task_it->get_ref<const std::string&>().empty()) {
    co_return tool_error("task must be a non-empty string: what the agent should do");
  }
  if (task_it->get_ref<const std::string&>().size() > max_task_chars) {
    co_return tool_error(fmt::format("task is over {} characters", max_task_chars));
  }
  agent::task_request request;
  request.user_id = context.user_id;
  request.key_id = context.key_id;
  request.admin = context.admin;
  request.task = task_it->get<std::string>();
  request.mode = "mcp";
  // The answer goes to the client's model, which sees PII tokens, never the
  // values (as in execute_code's answers): it is not de-tokenized.
  request.restore_pii = false;
  if (auto conversation = args.find("conversationId"); conversation != args.end() && !conversation->is_null()) {
    if (!conversation->is_string()) co_return tool_error("conversationId must be a string");
    request.conversation_id = conversation->get<std::string>();
  }
  request.trace = context.trace;
  auto ticket = co_await agent->submit(std::move(request));
  if (!ticket) co_return tool_error(ticket.error().describe());
  const std::string id = ticket->task_id;
  if (context.progress) context.progress("task " + id + " started");
  auto executor = co_await asio::this_coro::executor;
  if (context.stop) {
    // The call's cancel cancels the run (its LLM call and its sandbox), and
    // ends the waits for the caller's answers to its approvals.
    context.stop->arm([agent, executor, id, approver = context.approver] {
      if (approver) approver->cancel_waiting("the run was cancelled");
      auto cancelling = [](std::shared_ptr<agent::agent_manager> a, std::string task) -> asio::awaitable<void> {
        co_await a->cancel(std::move(task));
      };
      core::spawn_logged(executor, cancelling(agent, id), "mcp: cancelling task " + id);
    });
  }
  auto events = co_await agent->events(id, 0);
  if (events) {
    for (;;) {
      auto event = co_await (*events)->next(event_wait);
      if (!event) break;  // the run ended and every event was read
      if (event->type.empty()) continue;
      if (auto line = describe(*event); !line.empty() && context.progress) context.progress(std::move(line));
      if (event->type == "approval_requested") {
        core::spawn_logged(executor, ask_caller(agent, id, event->data, context), "mcp: an approval of task " + id);
      }
    }
  }
  if (context.stop) context.stop->disarm();
  // The run is over: an approval still put to the caller has nothing left to decide.
  if (context.approver) context.approver->cancel_waiting("the run ended");
  auto view = co_await agent->wait(id);
  if (!view) co_return tool_error(view.error().describe());
  co_return outcome(*view);
}

}  // namespace harness::mcp_server
