// The loop behind a new-era request whose answer is not final yet. Every
// step is a request of its own, so each one has the call's per-request
// timeout; `end` bounds them all. What a server may send is bounded here:
// rounds of input, input requests per round, the poll interval and the
// length of a task id, so that a hostile server cannot keep a call busy
// past its deadline or grow its memory.
#include "modern_calls.hpp"

#include <algorithm>
#include <set>

#include "elicitation.hpp"
#include "harness/core/logging.hpp"
#include "harness/mcp/errors.hpp"

namespace harness::mcp::detail {
namespace asio = boost::asio;
using nlohmann::json;

namespace {

constexpr int max_input_rounds = 8;             // of one request, and of one task (its tasks/update)
constexpr std::size_t max_input_requests = 16;  // answered per round: more are left unanswered
constexpr std::size_t max_input_key = 256;      // a longer key is left unanswered
constexpr std::size_t max_task_id = 512;
constexpr auto min_poll = std::chrono::milliseconds(50);
constexpr auto max_poll = std::chrono::milliseconds(2000);
constexpr auto cancel_timeout = std::chrono::milliseconds(2000);

std::string result_type(const json& answer) {
  const auto it = answer.find("resultType");
  return it != answer.end() && it->is_string() ? it->get<std::string>() : "complete";
}

json without_result_type(json answer) {
  if (answer.is_object()) answer.erase("resultType");
  return answer;
}

// The task of a task answer: its fields, flat or under "task".
const json& task_of(const json& answer) {
  const auto nested = answer.find("task");
  return nested != answer.end() && nested->is_object() ? *nested : answer;
}

std::string text_of(const json& value, const char* key) {
  const auto it = value.find(key);
  return it != value.end() && it->is_string() ? it->get<std::string>().substr(0, 500) : std::string();
}

class modern_call {
 public:
  modern_call(request_sender& sender, core::clock& clock, asio::any_io_executor executor, std::string method,
              call_deadline deadline, core::steady_time end)
      : sender_(sender),
        clock_(clock),
        executor_(std::move(executor)),
        method_(std::move(method)),
        deadline_(std::move(deadline)),
        end_(end) {}

  asio::awaitable<result<json>> run(json params, json answer) {
    for (int round = 0; result_type(answer) == "input_required"; ++round) {
      if (round == max_input_rounds) {
        co_return make_error(mcp::errc::bad_response, method_ + " still asked for input after " +
                                                          std::to_string(max_input_rounds) + " rounds; gave up");
      }
      const json requests = answer.value("inputRequests", json::object());
      params["inputResponses"] = co_await answer_inputs(requests, nullptr);
      if (answer.contains("requestState")) {
        params["requestState"] = answer["requestState"];
      } else {
        params.erase("requestState");
      }
      const call_deadline step = step_deadline();  // named locals, no temporaries in co_await (GCC 12)
      auto next = co_await sender_.send(method_, params, step);
      if (!next) co_return next.error();
      answer = std::move(*next);
    }
    if (result_type(answer) == "task") {
      json task = task_of(answer);
      co_return co_await follow_task(std::move(task));
    }
    co_return without_result_type(std::move(answer));
  }

 private:
  // The deadlines of one step: the call's timeout, never past `end`.
  call_deadline step_deadline() const {
    call_deadline d = deadline_;
    d.not_after = deadline_.not_after ? std::min(*deadline_.not_after, end_) : end_;
    return d;
  }

  // inputResponses for `requests` ({key: {method, params}}); keys in `skip` are left out.
  asio::awaitable<json> answer_inputs(const json& requests, const std::set<std::string>* skip) {
    json responses = json::object();
    if (!requests.is_object()) co_return responses;
    std::size_t taken = 0;
    for (const auto& [key, request] : requests.items()) {
      if (key.size() > max_input_key || (skip && skip->count(key)) || !request.is_object()) continue;
      if (++taken > max_input_requests) break;
      const std::string method = text_of(request, "method");
      const json params = request.contains("params") && request["params"].is_object() ? request["params"] : json();
      if (method == "elicitation/create") {
        responses[key] = co_await elicit(params);
      } else if (method == "roots/list") {
        responses[key] = {{"roots", json::array()}};
      }
      // Anything else (sampling/createMessage...) is a capability this client
      // does not declare: left unanswered, the server says what it lacks.
    }
    co_return responses;
  }

  // A person's answer when someone stands behind the call; else the schema's
  // defaults, or a decline. The wait for a person moves the deadlines on.
  asio::awaitable<json> elicit(const json& params) {
    if (deadline_.elicit) {
      const auto asked = clock_.steady_now();
      auto answer = co_await deadline_.elicit(params);
      const auto waited = clock_.steady_now() - asked;
      end_ += waited;
      if (deadline_.not_after) *deadline_.not_after += waited;
      if (answer && answer->is_object()) co_return std::move(*answer);
    }
    if (auto alone = elicitation_without_anyone(params)) co_return std::move(*alone);
    co_return json{{"action", "decline"}};
  }

  asio::awaitable<result<json>> follow_task(json task) {
    const auto id_it = task.find("taskId");
    const std::string id = id_it != task.end() && id_it->is_string() ? id_it->get<std::string>() : "";
    if (id.empty() || id.size() > max_task_id) {
      co_return make_error(mcp::errc::bad_response, method_ + " answered with a task without a usable taskId");
    }
    std::set<std::string> answered;  // input request keys already given to tasks/update
    int updates = 0;
    for (;;) {
      const std::string status = text_of(task, "status");
      if (status == "completed") {
        if (!task.contains("result") || !task["result"].is_object()) {
          co_return make_error(mcp::errc::bad_response, "task " + id + " completed without a result");
        }
        co_return without_result_type(std::move(task["result"]));
      }
      if (status == "failed") {
        const json error = task.value("error", json::object());
        const int code = error.is_object() && error.contains("code") && error["code"].is_number_integer()
                             ? error["code"].get<int>()
                             : 0;
        const std::string message = error.is_object() ? text_of(error, "message") : "";
        co_return make_error(mcp::errc::jsonrpc_error,
                             std::to_string(code) + ": " + (message.empty() ? "task " + id + " failed" : message));
      }
      if (status == "cancelled") {
        co_return make_error(mcp::errc::jsonrpc_error,
                             "task " + id + " was cancelled by the server: " + text_of(task, "statusMessage"));
      }
      if (status == "input_required") {
        const json requests = task.value("inputRequests", json::object());
        json responses = co_await answer_inputs(requests, &answered);
        if (!responses.empty()) {
          if (++updates > max_input_rounds) {
            co_await cancel(id);
            co_return make_error(mcp::errc::bad_response, "task " + id + " still asked for input after " +
                                                              std::to_string(max_input_rounds) +
                                                              " answers; it was cancelled");
          }
          for (const auto& [key, value] : responses.items()) answered.insert(key);
          const std::string update = "tasks/update";  // named locals, no temporaries in co_await (GCC 12)
          json update_params{{"taskId", id}, {"inputResponses", std::move(responses)}};
          const call_deadline step = step_deadline();
          auto updated = co_await sender_.send(update, std::move(update_params), step);
          if (!updated) {
            co_await cancel(id);
            co_return updated.error();
          }
        }
      }
      const bool in_time = co_await wait_poll(task);  // a local: GCC 12 and co_await in a condition
      if (!in_time) {
        co_await cancel(id);
        co_return make_error(mcp::errc::timeout,
                             method_ + " ran on as task " + id + " past its deadline; the task was cancelled",
                             "raise the timeout (MCP_REQUEST_TIMEOUT_MS or timeoutMs) if the tool is slow");
      }
      const std::string get = "tasks/get";
      json get_params{{"taskId", id}};
      const call_deadline step = step_deadline();
      auto polled = co_await sender_.send(get, std::move(get_params), step);
      if (!polled) {
        co_await cancel(id);
        co_return polled.error();
      }
      task = std::move(*polled);
    }
  }

  // Waits the interval the server asks for (within bounds); false when `end` comes first.
  asio::awaitable<bool> wait_poll(const json& task) {
    auto interval = min_poll * 4;
    if (task.contains("pollIntervalMs") && task["pollIntervalMs"].is_number()) {
      const double ms = std::clamp(task["pollIntervalMs"].get<double>(), 0.0, 1e7);  // JSON has no NaN
      interval = std::chrono::milliseconds(static_cast<long long>(ms));
    }
    interval = std::clamp<std::chrono::milliseconds>(interval, min_poll, max_poll);
    const auto at = clock_.steady_now() + interval;
    if (at >= step_end()) co_return false;
    auto timer = clock_.make_timer(executor_);
    timer->expires_at(at);
    co_await timer->wait();
    co_return true;
  }

  core::steady_time step_end() const { return deadline_.not_after ? std::min(*deadline_.not_after, end_) : end_; }

  asio::awaitable<void> cancel(const std::string& id) {
    const std::string method = "tasks/cancel";
    json params{{"taskId", id}};
    const call_deadline deadline(cancel_timeout);
    auto cancelled = co_await sender_.send(method, std::move(params), deadline);
    if (!cancelled) core::log_debug("mcp: tasks/cancel of {} failed: {}", id, cancelled.error().message);
  }

  request_sender& sender_;
  core::clock& clock_;
  asio::any_io_executor executor_;
  std::string method_;
  call_deadline deadline_;
  core::steady_time end_;
};

}  // namespace

bool continues(const json& answer) {
  if (!answer.is_object()) return false;
  const std::string type = result_type(answer);
  return type == "input_required" || type == "task" || answer.contains("resultType");
}

asio::awaitable<result<json>> finish_modern_call(request_sender& sender, core::clock& clock,
                                                 asio::any_io_executor executor, std::string method, json params,
                                                 call_deadline deadline, json first, core::steady_time end) {
  modern_call call(sender, clock, std::move(executor), std::move(method), std::move(deadline), end);
  co_return co_await call.run(std::move(params), std::move(first));
}

}  // namespace harness::mcp::detail
