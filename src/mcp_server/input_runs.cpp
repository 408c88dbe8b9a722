#include "input_runs.hpp"

#include <vector>

#include <fmt/format.h>

#include "harness/core/async_signal.hpp"
#include "harness/core/ids.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"
#include "jsonrpc.hpp"

namespace harness::mcp_server {

namespace asio = boost::asio;
using json = nlohmann::json;

namespace {

// "<prefix>_" and 32 hex digits: as unguessable as a session id.
constexpr std::size_t token_bytes = 16;
// How often a client should ask after a task: blocks take seconds, not milliseconds.
constexpr long long poll_interval_ms = 1000;
// The progress token a task's call runs with, so that its progress becomes the task's statusMessage.
constexpr const char* task_progress_token = "io.modelcontextprotocol/tasks";

// The inputRequests key of a request the session sent: from its JSON-RPC id.
std::string key_of(const json& id) {
  return "input-" + (id.is_string() ? id.get<std::string>() : id.dump());
}

std::string iso_time(core::system_time at) {
  return core::iso_utc(std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch()).count());
}

bool is_error(const json& answer) {
  return answer.contains("error");
}

}  // namespace

struct input_runs::run {
  run(const asio::any_io_executor& executor, core::clock& clock) : wake(executor, clock) {}
  std::string token;
  mcp_caller caller;
  std::shared_ptr<mcp_session> session;
  finish_fn finish;
  core::async_signal wake;
  json request_id;                      // the id the session knows the call by (for tasks/cancel)
  std::vector<json> asked;              // requests the session sent, not yet put to the client
  std::map<std::string, json> ids;      // by key: the JSON-RPC id of a request put to the client, unanswered
  std::map<std::string, json> pending;  // by key: that request as an inputRequests entry {method, params}
  std::optional<json> answer;           // the tools/call's own answer, once the block ended
  bool waiting = false;                 // a tools/call of the client waits on this run now
  json waiting_id;                      // that request's id
  core::steady_time touched{};
  // A task (the run answered resultType "task"):
  bool task = false;
  std::string task_id;  // minted with the run when it may become one
  bool cancel_asked = false;
  std::string status_message;  // the block's last progress
  core::system_time created{}, updated{};
  core::steady_time created_steady{};
};

input_runs::input_runs(const asio::any_io_executor& executor, core::clock& clock, std::chrono::milliseconds keep,
                       std::chrono::milliseconds task_after, std::string replica)
    : executor_(executor), clock_(clock), keep_(keep), task_after_(task_after), replica_(std::move(replica)) {}

asio::awaitable<json> input_runs::start(std::shared_ptr<mcp_session> session, json message, mcp_caller caller,
                                        finish_fn finish, bool may_task, std::shared_ptr<core::abandonment> abandoned) {
  const json id = message["id"];
  auto token = core::make_secret_id("mrtr_", token_bytes);
  auto task_id = core::make_secret_id("task_", token_bytes);
  if (!token || !task_id) {
    if (finish) co_await finish();
    co_return jsonrpc::error(id, jsonrpc::internal_error,
                             "no request state could be made: " + (token ? task_id : token).error().describe());
  }
  auto r = std::make_shared<run>(executor_, clock_);
  const std::string suffix = replica_.empty() ? "" : "." + replica_;
  r->token = *token + suffix;
  r->task_id = *task_id + suffix;
  r->caller = std::move(caller);
  r->session = std::move(session);
  r->finish = std::move(finish);
  r->request_id = id;
  r->touched = r->created_steady = clock_.steady_now();
  r->created = r->updated = clock_.system_now();
  runs_[r->token] = r;
  if (may_task) message["params"]["_meta"]["progressToken"] = task_progress_token;
  auto driving = drive(r, std::move(message));  // a local: GCC 12 and temporaries in co_spawn
  core::spawn_logged(executor_, std::move(driving), "mcp: a tools/call that may ask for input");
  co_return co_await next(r, id, may_task, std::move(abandoned));
}

// Runs the call on its session; what the session would send the client is
// kept on the run instead.
asio::awaitable<void> input_runs::drive(std::shared_ptr<run> r, json message) {
  std::weak_ptr<run> weak = r;
  core::clock& clock = clock_;
  notify_fn keep = [weak, &clock](json sent) {
    auto held = weak.lock();
    if (!held) return;
    if (kind_of(sent) == message_kind::request) {
      held->asked.push_back(std::move(sent));
      held->updated = clock.system_now();
      held->wake.notify_all();
      return;
    }
    const json& params = sent.contains("params") && sent["params"].is_object() ? sent["params"] : json::object();
    const json method = sent.value("method", json());
    if (method == "notifications/progress" && params.value("message", json()).is_string()) {
      held->status_message = params["message"];
      held->updated = clock.system_now();
    }
    // A request of ours that stopped waiting (its deadline passed): no longer asked.
    if (method == "notifications/cancelled" && params.contains("requestId")) {
      const auto key = key_of(params["requestId"]);
      held->ids.erase(key);
      held->pending.erase(key);
      std::erase_if(held->asked, [&](const json& request) { return key_of(request["id"]) == key; });
    }
  };
  const json id = message["id"];
  // After this await the face may have shut down and this object gone: only `r` and `clock` are used.
  auto answer = co_await r->session->handle(std::move(message), keep);
  r->answer = answer.value_or(jsonrpc::error(id, jsonrpc::internal_error, "the request was cancelled"));
  r->updated = clock.system_now();
  r->touched = clock.steady_now();
  r->wake.notify_all();
  // A task's sandbox goes as soon as its block ended; its answer stays for tasks/get.
  if (r->task && r->finish) {
    auto finish = std::move(r->finish);
    co_await finish();
  }
}

asio::awaitable<json> input_runs::next(std::shared_ptr<run> r, json id, bool may_task,
                                       std::shared_ptr<core::abandonment> abandoned) {
  r->waiting = true;
  r->waiting_id = id;
  if (abandoned) {
    // The client left before this request's answer (2026-07-28 over HTTP:
    // that is its cancellation). The answer still comes, to nobody, once
    // the block has stopped; a run answered meanwhile is left alone.
    std::weak_ptr<run> weak = r;
    abandoned->on_abandon([weak, executor = executor_, &clock = clock_] {
      auto held = weak.lock();
      if (!held || !held->waiting) return;
      core::log_info("mcp: the client of a tools/call closed its connection; stopping its block");
      auto stopping = stop_block(std::move(held), clock.system_now());  // a local: GCC 12
      core::spawn_logged(executor, std::move(stopping), "mcp: stopping an abandoned tools/call");
    });
  }
  struct forget {
    core::abandonment* hook;
    ~forget() {
      if (hook) hook->clear();
    }
  } answered{abandoned.get()};
  const auto task_at = clock_.steady_now() + task_after_;
  auto settled = [&r] { return r->answer || !r->asked.empty() || !r->pending.empty(); };
  while (!settled()) {
    if (!may_task) {
      co_await r->wake.wait();
    } else if (!co_await r->wake.wait_until(task_at) && clock_.steady_now() >= task_at) {
      break;
    }
  }
  r->waiting = false;
  r->touched = clock_.steady_now();
  if (!settled()) co_return become_task(*r, id);
  if (!r->answer) {  // input first (a response left out is asked again, as the specification says)
    put_to_client(*r);
    json requests = json::object();
    for (const auto& [key, request] : r->pending) requests[key] = request;
    co_return jsonrpc::result(
        id, {{"resultType", "input_required"}, {"inputRequests", std::move(requests)}, {"requestState", r->token}});
  }
  json answer = std::move(*r->answer);
  answer["id"] = id;  // the answer of this request, the last of the rounds
  co_await drop(r->token);
  co_return answer;
}

void input_runs::put_to_client(run& r) {
  for (auto& request : r.asked) {
    const auto key = key_of(request["id"]);
    r.ids[key] = request["id"];
    r.pending[key] = {{"method", request["method"]}, {"params", request.value("params", json::object())}};
  }
  r.asked.clear();
}

json input_runs::become_task(run& r, const json& id) {
  auto held = runs_.extract(r.token);
  r.task = true;
  r.token = r.task_id;
  held.key() = r.token;
  runs_.insert(std::move(held));
  json created = task_fields(r);
  created["resultType"] = "task";
  return jsonrpc::result(id, std::move(created));
}

json input_runs::task_fields(const run& r) const {
  std::string status = "working";
  if (r.answer) {
    status = !is_error(*r.answer) ? "completed" : r.cancel_asked ? "cancelled" : "failed";
  } else if (!r.asked.empty() || !r.pending.empty()) {
    status = "input_required";
  }
  // Kept `keep` after the block ends or the client last asks: counted from now while it runs.
  const auto drops_at = (r.answer ? r.touched : clock_.steady_now()) + keep_;
  json fields{{"taskId", r.token},
              {"status", status},
              {"createdAt", iso_time(r.created)},
              {"lastUpdatedAt", iso_time(r.updated)},
              {"ttlMs", std::chrono::duration_cast<std::chrono::milliseconds>(drops_at - r.created_steady).count()},
              {"pollIntervalMs", poll_interval_ms}};
  if (!r.status_message.empty() && !r.answer) fields["statusMessage"] = r.status_message;
  if (status == "cancelled") fields["statusMessage"] = "cancelled by tasks/cancel: the block was stopped";
  return fields;
}

std::variant<std::shared_ptr<input_runs::run>, json> input_runs::find(const json& id, const std::string& token,
                                                                      const mcp_caller& caller, bool task) const {
  auto it = runs_.find(token);
  if (it != runs_.end() && it->second->caller.user_id == caller.user_id && it->second->caller.key_id == caller.key_id &&
      it->second->task == task) {
    return it->second;
  }
  // The same answer for another caller's run as for a made-up token.
  const auto dot = token.find('.');
  const std::string replica = dot == std::string::npos ? "" : token.substr(dot + 1, 64);
  const char* what = task ? "task" : "requestState";
  if (!replica.empty() && replica != replica_ && !replica_.empty()) {
    json answer = jsonrpc::error(id, jsonrpc::invalid_params,
                                 fmt::format("this {} belongs to replica '{}': send the request there", what, replica));
    answer["error"]["data"] = {{"replica", replica}};
    return answer;
  }
  if (task) {
    return jsonrpc::error(id, jsonrpc::invalid_params,
                          "task not found: it ended longer ago than its ttlMs, or it is not yours");
  }
  return jsonrpc::error(id, jsonrpc::invalid_params,
                        "unknown requestState: the call it continues has ended or was dropped, or it is not yours; "
                        "call the tool again without requestState");
}

asio::awaitable<json> input_runs::resume(json message, const mcp_caller& caller, bool may_task,
                                         std::shared_ptr<core::abandonment> abandoned) {
  const json id = message["id"];
  const json& params = message["params"];
  const auto state_it = params.find("requestState");
  const std::string state = state_it != params.end() && state_it->is_string() ? state_it->get<std::string>() : "";
  auto found = find(id, state, caller, false);
  if (auto* refused = std::get_if<json>(&found)) co_return std::move(*refused);
  auto r = std::get<std::shared_ptr<run>>(std::move(found));
  if (r->waiting) {
    co_return jsonrpc::error(id, jsonrpc::invalid_request,
                             "another request is already continuing this call; wait for its answer");
  }
  r->waiting = true;  // before the await: a second retry meanwhile is refused, not let in
  co_await deliver(r, params);
  co_return co_await next(r, id, may_task, std::move(abandoned));
}

asio::awaitable<void> input_runs::deliver(const std::shared_ptr<run>& r, const json& params) {
  const auto responses_it = params.find("inputResponses");
  if (responses_it == params.end() || !responses_it->is_object()) co_return;
  for (const auto& [key, response] : responses_it->items()) {
    auto asked = r->ids.find(key);
    if (asked == r->ids.end()) continue;  // answered already, or never asked: ignored
    json delivered{{"jsonrpc", "2.0"}, {"id", asked->second}, {"result", response}};
    r->ids.erase(asked);
    r->pending.erase(key);
    r->updated = clock_.system_now();
    const notify_fn nothing;                                     // named: no temporary in co_await (GCC 12)
    co_await r->session->handle(std::move(delivered), nothing);  // to the request waiting for it
  }
}

asio::awaitable<json> input_runs::task_request(json message, const mcp_caller& caller) {
  const json id = message["id"];
  const std::string method = message["method"];
  const json& params = message.contains("params") ? message["params"] : json::object();
  const auto task_it = params.find("taskId");
  if (task_it == params.end() || !task_it->is_string()) {
    co_return jsonrpc::error(id, jsonrpc::invalid_params,
                             method + " needs params.taskId (a string from a task result)");
  }
  auto found = find(id, task_it->get<std::string>(), caller, true);
  if (auto* refused = std::get_if<json>(&found)) co_return std::move(*refused);
  auto r = std::get<std::shared_ptr<run>>(std::move(found));
  r->touched = std::max(r->touched, clock_.steady_now());
  if (method == "tasks/update") {
    co_await deliver(r, params);
    co_return jsonrpc::result(id, json::object());
  }
  if (method == "tasks/cancel") {
    core::log_info("mcp: a task was cancelled by its client; stopping its block");
    co_await stop_block(r, clock_.system_now());
    co_return jsonrpc::result(id, json::object());
  }
  put_to_client(*r);
  json detailed = task_fields(*r);
  if (detailed["status"] == "input_required") {
    json requests = json::object();
    for (const auto& [key, request] : r->pending) requests[key] = request;
    detailed["inputRequests"] = std::move(requests);
  } else if (detailed["status"] == "completed") {
    detailed["result"] = (*r->answer)["result"];
  } else if (detailed["status"] == "failed") {
    detailed["error"] = (*r->answer)["error"];
  }
  co_return jsonrpc::result(id, std::move(detailed));
}

asio::awaitable<void> input_runs::stop_block(std::shared_ptr<run> r, core::system_time now) {
  if (r->answer || r->cancel_asked) co_return;
  r->cancel_asked = true;
  r->updated = now;
  json cancelled = jsonrpc::notification("notifications/cancelled", {{"requestId", r->request_id}});
  const notify_fn nothing;  // named: no temporary in co_await (GCC 12)
  co_await r->session->handle(std::move(cancelled), nothing);
}

asio::awaitable<void> input_runs::cancel(json request_id, const mcp_caller& caller) {
  for (const auto& [token, r] : runs_) {
    if (r->task || !r->waiting || r->waiting_id != request_id || r->caller.user_id != caller.user_id ||
        r->caller.key_id != caller.key_id) {
      continue;
    }
    core::log_info("mcp: a tools/call was cancelled by its client; stopping its block");
    co_await stop_block(r, clock_.system_now());
    co_return;
  }
}

asio::awaitable<void> input_runs::drop(std::string token) {
  auto it = runs_.find(token);
  if (it == runs_.end()) co_return;
  auto finish = std::move(it->second->finish);  // kept alive across the await below
  runs_.erase(it);
  if (finish) co_await finish();
}

asio::awaitable<void> input_runs::drop_if_stale(std::string token) {
  // Looked at again: a retry may have come between the sweep and this turn.
  auto it = runs_.find(token);
  if (it == runs_.end() || it->second->waiting || clock_.steady_now() - it->second->touched <= keep_) co_return;
  co_await drop(std::move(token));
}

void input_runs::sweep() {
  const auto now = clock_.steady_now();
  std::vector<std::string> stale;
  for (const auto& [token, r] : runs_) {
    // A task whose block runs and asks nothing is bounded by the block's own timeout.
    const bool working_task = r->task && !r->answer && r->asked.empty() && r->pending.empty();
    if (!r->waiting && !working_task && now - r->touched > keep_) stale.push_back(token);
  }
  for (auto& token : stale) {
    core::log_info("mcp: dropping a tools/call or task untouched by its client for {} s", keep_.count() / 1000);
    auto dropping = drop_if_stale(std::move(token));  // a local: GCC 12
    core::spawn_logged(executor_, std::move(dropping), "mcp: dropping an unanswered tools/call");
  }
}

asio::awaitable<void> input_runs::shutdown() {
  std::vector<std::string> tokens;
  for (const auto& [token, r] : runs_) tokens.push_back(token);
  for (auto& token : tokens) co_await drop(std::move(token));
}

}  // namespace harness::mcp_server
