#include "modern_requests.hpp"

#include <fmt/format.h>

#include "code_tools.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/run_blocking.hpp"
#include "harness/core/trace_context.hpp"
#include "harness/core/version.hpp"
#include "harness/mcp_server/modern.hpp"
#include "harness/skills/errors.hpp"
#include "jsonrpc.hpp"
#include "skill_resources.hpp"
#include "skills_extension.hpp"
#include "task_tool.hpp"

namespace harness::mcp_server {
namespace {

namespace asio = boost::asio;
using json = nlohmann::json;

// How long a client may keep what server/discover and tools/list said: the
// face's tools and capabilities only change with a new release of the server.
constexpr long long stable_ttl_ms = 5 * 60 * 1000;

json server_info() {
  return {{"name", "mcp-harness"}, {"title", "mcp-harness code mode"}, {"version", core::version()}};
}

// Every new-era result says what kind it is and who answered.
json completed(json answer) {
  auto result = answer.find("result");
  if (result == answer.end() || !result->is_object()) return answer;
  if (!result->contains("resultType")) (*result)["resultType"] = "complete";
  (*result)["_meta"][modern::server_info_key] = server_info();
  return answer;
}

// The caching hints 2026-07-28 requires on lists and reads.
json cacheable(json answer, long long ttl_ms, const char* scope) {
  auto result = answer.find("result");
  if (result == answer.end() || !result->is_object()) return answer;
  (*result)["ttlMs"] = ttl_ms;
  (*result)["cacheScope"] = scope;
  return answer;
}

const json& params_of(const json& message) {
  static const json none = json::object();
  auto params = message.find("params");
  return params != message.end() && params->is_object() ? *params : none;
}

const json& arguments_of(const json& message) {
  static const json none = json::object();
  const json& params = params_of(message);
  auto args = params.find("arguments");
  return args != params.end() && args->is_object() ? *args : none;
}

}  // namespace

modern_requests::modern_requests(const asio::any_io_executor& executor, core::clock& clock,
                                 std::shared_ptr<const face_deps> deps, face_config config, session_table& table)
    : executor_(executor),
      clock_(clock),
      deps_(std::move(deps)),
      config_(std::move(config)),
      table_(table),
      // A paused call is kept while its approval may still be answered, and a minute more.
      runs_(executor, clock, config_.approval_timeout + std::chrono::minutes(1), config_.task_after, config_.replica) {}

asio::awaitable<std::optional<json>> modern_requests::handle(json message, mcp_caller caller, notify_fn notify,
                                                             std::shared_ptr<core::abandonment> abandoned) {
  switch (kind_of(message)) {
    case message_kind::notification: {
      // Over stdio a client cancels a request so (over HTTP it closes the connection).
      const json& params = params_of(message);
      if (message["method"] == "notifications/cancelled" && params.contains("requestId")) {
        co_await runs_.cancel(params["requestId"], caller);
      }
      co_return std::nullopt;
    }
    case message_kind::other:
      co_return jsonrpc::error(message.is_object() ? message.value("id", json()) : json(), jsonrpc::invalid_request,
                               "not a JSON-RPC 2.0 request: it needs \"jsonrpc\": \"2.0\", a string \"method\" and a "
                               "string or integer \"id\" (in MCP 2026-07-28 this server sends no requests, so it "
                               "takes no responses)");
    case message_kind::request:
      break;
  }
  const json id = message["id"];
  const std::string method = message["method"];
  if (message.contains("params") && !message["params"].is_object()) {
    co_return jsonrpc::error(id, jsonrpc::invalid_params, "params must be an object");
  }
  if (method == "server/discover")
    co_return completed(cacheable(jsonrpc::result(id, discover()), stable_ttl_ms, "public"));
  if (method == "ping") co_return completed(jsonrpc::result(id, json::object()));
  if (method == "tools/list") {
    co_return completed(
        cacheable(jsonrpc::result(id, {{"tools", tool_definitions(true, !!deps_->agent)}}), stable_ttl_ms, "public"));
  }
  if (method == "tools/call") {
    // A caller in a trace names it in _meta (traceparent, tracestate): the
    // call's log says which trace it joins; a malformed one is ignored.
    // (Only checked values reach the log: the user, and the trace's hex ids.)
    if (auto trace = core::trace_context_from_meta(params_of(message).value("_meta", json()))) {
      core::log_info("mcp: a tools/call for {} joins trace {} (parent span {})", caller.user_id.substr(0, 64),
                     trace->trace_id, trace->parent_id);
    }
    co_return completed(co_await call_tool(message, caller, std::move(notify), std::move(abandoned)));
  }
  if (method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel") {
    if (!modern::declares_extension(message, modern::tasks_extension)) {
      json refused = jsonrpc::error(id, modern::missing_capability,
                                    method +
                                        " is part of the Tasks extension: declare it in the request's client "
                                        "capabilities (extensions[\"" +
                                        modern::tasks_extension + "\"])");
      refused["error"]["data"] = {
          {"requiredCapabilities", {{"extensions", {{modern::tasks_extension, json::object()}}}}}};
      co_return refused;
    }
    co_return completed(co_await runs_.task_request(std::move(message), caller));
  }
  if (deps_->skills &&
      (method == "resources/list" || method == "resources/read" || method == "resources/templates/list")) {
    // The user's skills: theirs alone, and they change when the user saves one.
    const bool templates = method == "resources/templates/list";
    auto answer = co_await one_shot(std::move(message), caller, std::move(notify));
    // 2026-07-28 retired "resource not found" (-32002) for invalid params.
    if (answer->contains("error") && (*answer)["error"].value("code", 0) == resource_not_found) {
      (*answer)["error"]["code"] = jsonrpc::invalid_params;
    }
    co_return completed(cacheable(std::move(*answer), templates ? stable_ttl_ms : 0, templates ? "public" : "private"));
  }
  if (deps_->skills && (method == "skills/list" || method == "skills/get")) {
    co_return completed(cacheable(co_await skills_request(message, caller), 0, "private"));
  }
  const char* offered = deps_->skills ? "server/discover, ping, tools/list, tools/call, resources/list, "
                                        "resources/read, resources/templates/list, the Skills extension's skills/list "
                                        "and skills/get, and the Tasks extension's tasks/get, tasks/update and "
                                        "tasks/cancel"
                                      : "server/discover, ping, tools/list, tools/call and the Tasks extension's "
                                        "tasks/get, tasks/update and tasks/cancel";
  co_return jsonrpc::error(
      id, jsonrpc::method_not_found,
      fmt::format("method not found: {} (in MCP 2026-07-28 this server offers {})", method.substr(0, 100), offered));
}

json modern_requests::discover() const {
  // execute_code may answer with a task (when the request declares the extension too).
  json capabilities{{"tools", {{"listChanged", false}}}, {"extensions", {{modern::tasks_extension, json::object()}}}};
  if (deps_->skills) {
    capabilities["resources"] = {{"listChanged", false}, {"subscribe", false}};
    capabilities["extensions"][skills_extension] = {{"directoryRead", false}};
  }
  return {{"supportedVersions", modern::versions()},
          {"capabilities", std::move(capabilities)},
          {"instructions", instructions(true)}};
}

asio::awaitable<json> modern_requests::skills_request(const json& message, const mcp_caller& caller) {
  const json& id = message["id"];
  const skills::skill_library* library = deps_->skills.get();
  const std::string user = caller.user_id;
  if (message["method"] == "skills/list") {
    auto work = [library, user] { return list_skill_entries(*library, user); };
    auto listed = co_await core::run_blocking(deps_->blocking, std::move(work));
    if (!listed) co_return jsonrpc::error(id, jsonrpc::internal_error, listed.error().message);
    co_return jsonrpc::result(id, std::move(*listed));
  }
  const json& uri = params_of(message).contains("uri") ? params_of(message)["uri"] : json();
  if (!uri.is_string()) co_return jsonrpc::error(id, jsonrpc::invalid_params, "skills/get needs params.uri (a string)");
  auto work = [library, user, uri = uri.get<std::string>()] { return get_skill_entry(*library, user, uri); };
  auto found = co_await core::run_blocking(deps_->blocking, std::move(work));
  if (found) co_return jsonrpc::result(id, std::move(*found));
  const bool missing =
      found.error().code == skills::errc::skill_not_found || found.error().code == skills::errc::invalid_skill_name;
  co_return jsonrpc::error(id, missing ? jsonrpc::invalid_params : jsonrpc::internal_error, found.error().message);
}

asio::awaitable<json> modern_requests::call_tool(const json& message, const mcp_caller& caller, notify_fn notify,
                                                 std::shared_ptr<core::abandonment> abandoned) {
  const json& id = message["id"];
  const json& params = params_of(message);
  const std::string name = params.value("name", json()).is_string() ? params["name"].get<std::string>() : "";
  const json& args = arguments_of(message);
  // A retry with the client's input for a call that asked for it.
  // A run of the agent is a one-shot call too (its own session, for its approvals and cancel).
  const bool agent_run = name == run_task_tool_name && deps_->agent;
  const bool may_task =
      (name == execute_tool_name || agent_run) && modern::declares_extension(message, modern::tasks_extension);
  if (params.contains("requestState")) co_return co_await runs_.resume(message, caller, may_task, abandoned);
  if (name == open_session_tool_name) co_return co_await open_session(id, caller);
  if (name == close_session_tool_name) co_return co_await close_session(id, args, caller);
  if (agent_run) co_return co_await execute_one_shot(message, caller, may_task, abandoned);
  if (name != execute_tool_name) {
    auto answer = co_await one_shot(message, caller, std::move(notify));
    co_return std::move(*answer);
  }
  auto handle = args.find("session");
  if (handle == args.end() || handle->is_null()) {
    co_return co_await execute_one_shot(message, caller, may_task, abandoned);
  }
  if (!handle->is_string()) {
    co_return jsonrpc::result(id, tool_error("session must be a string: a handle from open_session"));
  }
  auto found = session_for(id, handle->get<std::string>(), caller);
  if (auto* refused = std::get_if<json>(&found)) co_return std::move(*refused);
  auto session = std::get<std::shared_ptr<mcp_session>>(std::move(found));
  // This request's capabilities, for what its block may ask; not while
  // another request's block runs there (this one is refused as busy).
  if (!session->busy()) session->set_client_capabilities(modern::client_capabilities(message));
  const input_runs::finish_fn nothing_to_end;  // the handle's session stays
  co_return co_await runs_.start(std::move(session), message, caller, nothing_to_end, may_task, abandoned);
}

asio::awaitable<json> modern_requests::execute_one_shot(json message, const mcp_caller& caller, bool may_task,
                                                        std::shared_ptr<core::abandonment> abandoned) {
  auto [number, session] = open_one_shot(caller);
  session->set_client_capabilities(modern::client_capabilities(message));
  input_runs::finish_fn finish = [this, number, session] { return end_one_shot(this, number, session); };
  co_return co_await runs_.start(std::move(session), std::move(message), caller, std::move(finish), may_task,
                                 std::move(abandoned));
}

std::pair<std::uint64_t, std::shared_ptr<mcp_session>> modern_requests::open_one_shot(const mcp_caller& caller) {
  const auto number = next_one_shot_++;
  auto session = create_session(executor_, clock_, deps_, config_, fmt::format("one-shot-{}", number), caller.user_id,
                                caller.key_id, caller.admin, session_style::one_shot);
  one_shots_[number] = session;
  return {number, std::move(session)};
}

asio::awaitable<void> modern_requests::end_one_shot(modern_requests* self, std::uint64_t number,
                                                    std::shared_ptr<mcp_session> session) {
  self->one_shots_.erase(number);
  co_await session->close();
}

std::variant<std::shared_ptr<mcp_session>, json> modern_requests::session_for(const json& id, const std::string& handle,
                                                                              const mcp_caller& caller) {
  auto session = table_.find(handle, caller.key_id);
  if (session && session->is_handle() && session->user_id() == caller.user_id) return session;
  if (auto replica = table_.elsewhere(handle); !replica.empty()) {
    // Infrastructure, not the model's to fix: the transport answers 421.
    json answer = jsonrpc::error(
        id, jsonrpc::invalid_params,
        fmt::format("session {} lives on replica '{}': send the requests that name it there (route by what follows "
                    "the first '.' of the Mcp-Param-Session header, see docs/DEPLOYMENT.md)",
                    handle.substr(0, 80), replica.substr(0, 64)));
    answer["error"]["data"] = {{"session", handle.substr(0, 80)}, {"replica", replica.substr(0, 64)}};
    return answer;
  }
  return jsonrpc::result(
      id, tool_error(fmt::format("unknown session {}: it was closed, idled out, or was never yours; open_session "
                                 "starts a new one (or leave session out to run in a fresh sandbox)",
                                 handle.substr(0, 80))));
}

asio::awaitable<json> modern_requests::open_session(const json& id, const mcp_caller& caller) {
  auto opened = table_.open_styled(caller.user_id, caller.key_id, caller.admin, session_style::handle);
  if (!opened.session) {
    std::string why;
    switch (opened.refused) {
      case session_refusal::key_full:
        why = "this API key holds the most sessions one key may (MCP_MAX_SESSIONS_PER_KEY)";
        break;
      case session_refusal::user_full:
        why = "this user holds the most sessions one user may (MCP_MAX_SESSIONS_PER_USER)";
        break;
      case session_refusal::stopping:
        why = "the server is shutting down";
        break;
      default:
        why = "the server holds the most sessions it may (MCP_MAX_SESSIONS)";
    }
    co_return jsonrpc::result(
        id, tool_error("no session could be opened: " + why +
                       "; close_session one you no longer need, or run without a session (a fresh sandbox)"));
  }
  const std::string& handle = opened.session->id();
  const auto idle_minutes = std::chrono::duration_cast<std::chrono::minutes>(config_.session_idle).count();
  co_return jsonrpc::result(
      id, tool_result(fmt::format("Session {} is open: pass it as execute_code's session to keep variables between "
                                  "calls. close_session ends it; so do {} minutes unused.",
                                  handle, idle_minutes),
                      {{"session", handle}}, false));
}

asio::awaitable<json> modern_requests::close_session(const json& id, const json& args, const mcp_caller& caller) {
  auto handle = args.find("session");
  if (handle == args.end() || !handle->is_string()) {
    co_return jsonrpc::result(id, tool_error("session (a handle from open_session) is required"));
  }
  auto found = session_for(id, handle->get<std::string>(), caller);
  if (auto* refused = std::get_if<json>(&found)) co_return std::move(*refused);
  co_await table_.end(handle->get<std::string>(), caller.key_id);
  co_return jsonrpc::result(id, tool_result("Session closed.", {{"closed", true}}, false));
}

asio::awaitable<std::optional<json>> modern_requests::one_shot(json message, const mcp_caller& caller,
                                                               notify_fn notify) {
  auto [number, session] = open_one_shot(caller);
  const json id = message["id"];
  auto answer = co_await session->handle(std::move(message), std::move(notify));
  co_await end_one_shot(this, number, session);
  co_return answer.value_or(jsonrpc::error(id, jsonrpc::internal_error, "the request was cancelled"));
}

asio::awaitable<void> modern_requests::shutdown() {
  co_await runs_.shutdown();
  auto running = std::move(one_shots_);
  one_shots_.clear();
  for (auto& [number, session] : running) co_await session->close();
}

}  // namespace harness::mcp_server
