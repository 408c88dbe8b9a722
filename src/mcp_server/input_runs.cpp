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

// The inputRequests key of a request the session sent: from its JSON-RPC id.
std::string key_of(const json& id) {
  return "input-" + (id.is_string() ? id.get<std::string>() : id.dump());
}

}  // namespace

struct input_runs::run {
  run(const asio::any_io_executor& executor, core::clock& clock) : wake(executor, clock) {}
  std::string token;
  mcp_caller caller;
  std::shared_ptr<mcp_session> session;
  finish_fn finish;
  core::async_signal wake;
  std::vector<json> asked;              // requests the session sent, not yet put to the client
  std::map<std::string, json> ids;      // by key: the JSON-RPC id of a request put to the client, unanswered
  std::map<std::string, json> pending;  // by key: that request as an inputRequests entry {method, params}
  std::optional<json> answer;           // the tools/call's own answer, once the block ended
  bool waiting = false;                 // a tools/call of the client waits on this run now
  core::steady_time touched{};
};

input_runs::input_runs(const asio::any_io_executor& executor, core::clock& clock, std::chrono::milliseconds keep,
                       std::string replica)
    : executor_(executor), clock_(clock), keep_(keep), replica_(std::move(replica)) {}

asio::awaitable<json> input_runs::start(std::shared_ptr<mcp_session> session, json message, mcp_caller caller,
                                        finish_fn finish) {
  const json id = message["id"];
  auto token = core::make_secret_id("mrtr_", token_bytes);
  if (!token) {
    if (finish) co_await finish();
    co_return jsonrpc::error(id, jsonrpc::internal_error,
                             "no request state could be made: " + token.error().describe());
  }
  auto r = std::make_shared<run>(executor_, clock_);
  r->token = replica_.empty() ? *token : *token + "." + replica_;
  r->caller = std::move(caller);
  r->session = std::move(session);
  r->finish = std::move(finish);
  r->touched = clock_.steady_now();
  runs_[r->token] = r;
  auto driving = drive(r, std::move(message));  // a local: GCC 12 and temporaries in co_spawn
  core::spawn_logged(executor_, std::move(driving), "mcp: a tools/call that may ask for input");
  co_return co_await next(r, id);
}

// Runs the call on its session; what the session would send the client is
// kept on the run instead.
asio::awaitable<void> input_runs::drive(std::shared_ptr<run> r, json message) {
  std::weak_ptr<run> weak = r;
  notify_fn keep = [weak](json sent) {
    auto held = weak.lock();
    if (!held) return;
    if (kind_of(sent) == message_kind::request) {
      held->asked.push_back(std::move(sent));
      held->wake.notify_all();
      return;
    }
    // A request of ours that stopped waiting (its deadline passed): no longer asked.
    if (sent.value("method", json()) == "notifications/cancelled" && sent.contains("params") &&
        sent["params"].is_object() && sent["params"].contains("requestId")) {
      const auto key = key_of(sent["params"]["requestId"]);
      held->ids.erase(key);
      held->pending.erase(key);
    }
  };
  const json id = message["id"];
  auto answer = co_await r->session->handle(std::move(message), keep);
  r->answer = answer.value_or(jsonrpc::error(id, jsonrpc::internal_error, "the request was cancelled"));
  r->wake.notify_all();
}

asio::awaitable<json> input_runs::next(std::shared_ptr<run> r, json id) {
  r->waiting = true;
  while (!r->answer && r->asked.empty() && r->pending.empty()) co_await r->wake.wait();
  r->waiting = false;
  r->touched = clock_.steady_now();
  if (!r->answer) {  // input first (a response left out is asked again, as the specification says)
    for (auto& request : r->asked) {
      const auto key = key_of(request["id"]);
      r->ids[key] = request["id"];
      r->pending[key] = {{"method", request["method"]}, {"params", request.value("params", json::object())}};
    }
    r->asked.clear();
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

asio::awaitable<json> input_runs::resume(json message, const mcp_caller& caller) {
  const json id = message["id"];
  const json& params = message["params"];
  const auto state_it = params.find("requestState");
  const std::string state = state_it != params.end() && state_it->is_string() ? state_it->get<std::string>() : "";
  auto it = runs_.find(state);
  if (it == runs_.end() || it->second->caller.user_id != caller.user_id || it->second->caller.key_id != caller.key_id) {
    // The same answer for another caller's run as for a made-up state.
    const auto dot = state.find('.');
    const std::string replica = dot == std::string::npos ? "" : state.substr(dot + 1, 64);
    if (!replica.empty() && replica != replica_ && !replica_.empty()) {
      json answer =
          jsonrpc::error(id, jsonrpc::invalid_params,
                         fmt::format("this requestState belongs to replica '{}': send the retry there", replica));
      answer["error"]["data"] = {{"replica", replica}};
      co_return answer;
    }
    co_return jsonrpc::error(id, jsonrpc::invalid_params,
                             "unknown requestState: the call it continues has ended or was dropped, or it is not "
                             "yours; call the tool again without requestState");
  }
  auto r = it->second;
  if (r->waiting) {
    co_return jsonrpc::error(id, jsonrpc::invalid_request,
                             "another request is already continuing this call; wait for its answer");
  }
  const auto responses_it = params.find("inputResponses");
  if (responses_it != params.end() && responses_it->is_object()) {
    for (const auto& [key, response] : responses_it->items()) {
      auto asked = r->ids.find(key);
      if (asked == r->ids.end()) continue;  // answered already, or never asked: ignored
      json delivered{{"jsonrpc", "2.0"}, {"id", asked->second}, {"result", response}};
      r->ids.erase(asked);
      r->pending.erase(key);
      const notify_fn nothing;                                     // named: no temporary in co_await (GCC 12)
      co_await r->session->handle(std::move(delivered), nothing);  // to the request waiting for it
    }
  }
  co_return co_await next(r, id);
}

asio::awaitable<void> input_runs::drop(std::string token) {
  auto it = runs_.find(token);
  if (it == runs_.end()) co_return;
  auto finish = std::move(it->second->finish);  // kept alive across the await below
  runs_.erase(it);
  if (finish) co_await finish();
}

void input_runs::sweep() {
  const auto now = clock_.steady_now();
  std::vector<std::string> stale;
  for (const auto& [token, r] : runs_) {
    if (!r->waiting && now - r->touched > keep_) stale.push_back(token);
  }
  for (auto& token : stale) {
    core::log_info("mcp: dropping a tools/call that waited {} s for its client", keep_.count() / 1000);
    auto dropping = drop(std::move(token));  // a local: GCC 12
    core::spawn_logged(executor_, std::move(dropping), "mcp: dropping an unanswered tools/call");
  }
}

asio::awaitable<void> input_runs::shutdown() {
  std::vector<std::string> tokens;
  for (const auto& [token, r] : runs_) tokens.push_back(token);
  for (auto& token : tokens) co_await drop(std::move(token));
}

}  // namespace harness::mcp_server
