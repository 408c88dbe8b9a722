#include "session.hpp"

#include <map>
#include <set>

#include <fmt/format.h>

#include "code_tools.hpp"
#include "face_approver.hpp"
#include "harness/bridge/outcome_json.hpp"
#include "harness/bridge/outcome_text.hpp"
#include "harness/bridge/tool_gateway.hpp"
#include "harness/core/async_signal.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/run_blocking.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/core/trace_context.hpp"
#include "harness/core/utf8.hpp"
#include "harness/core/version.hpp"
#include "harness/execution/errors.hpp"
#include "harness/execution/execution_service.hpp"
#include "harness/skills/errors.hpp"
#include "harness/telemetry/tracer.hpp"
#include "jsonrpc.hpp"
#include "skill_resources.hpp"
#include "task_tool.hpp"

namespace harness::mcp_server {
namespace {

namespace asio = boost::asio;
using json = nlohmann::json;

// Of the result text: a model reads it, so past this it is cut with a note
// (the structured copy is cut the same way by the sandbox's own caps).
constexpr std::size_t max_result_text = 100 * 1024;

// A request being handled, so that notifications/cancelled can find it.
struct in_flight {
  bool cancelled = false;
  bool executing = false;  // an execute_code whose block may be running, or a run_task
  bool agent_run = false;  // a run_task: its approvals hold the session's channel
  // A one-shot block's way to be stopped (a session's block stops with its session).
  std::shared_ptr<execution::block_stop> stop;
};

// Ticks notifications/progress while a block runs, until stopped.
struct progress_ticker {
  progress_ticker(const asio::any_io_executor& executor, core::clock& c) : clock(c), wake(executor, c) {}
  core::clock& clock;
  core::async_signal wake;
  bool stopped = false;
};

asio::awaitable<void> tick_progress(std::shared_ptr<progress_ticker> ticker, json token, notify_fn notify,
                                    std::chrono::milliseconds interval) {
  auto started = ticker->clock.steady_now();
  for (int n = 1; !ticker->stopped; ++n) {
    co_await ticker->wake.wait_for(interval);
    if (ticker->stopped) break;
    auto seconds = std::chrono::duration_cast<std::chrono::seconds>(ticker->clock.steady_now() - started).count();
    notify(jsonrpc::notification(
        "notifications/progress",
        {{"progressToken", token}, {"progress", n}, {"message", fmt::format("the code has run for {} s", seconds)}}));
  }
}

std::string_view string_field(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>())
                                               : std::string_view();
}

// The model's text of a block (bridge::outcome_text), cut past max_result_text with a note.
std::string result_text(const bridge::exec_result& block, std::string_view note) {
  std::string text = bridge::outcome_text(block, note);
  if (text.size() > max_result_text) {
    const std::size_t cut = core::utf8_boundary(text, max_result_text);
    text = fmt::format("{}\n[cut: {} more characters; return less, or write it to /workspace]", text.substr(0, cut),
                       text.size() - cut);
  }
  return text;
}

class session_impl final : public mcp_session, public std::enable_shared_from_this<session_impl> {
 public:
  session_impl(const asio::any_io_executor& executor, core::clock& clock, std::shared_ptr<const face_deps> deps,
               const face_config& config, std::string id, std::string user_id, std::string key_id, bool admin,
               session_style style)
      : executor_(executor),
        clock_(clock),
        deps_(std::move(deps)),
        config_(config),
        id_(std::move(id)),
        user_id_(std::move(user_id)),
        key_id_(std::move(key_id)),
        admin_(admin),
        style_(style),
        last_active_(clock.steady_now()),
        streams_(executor, clock),
        approver_(std::make_shared<face_approver>(executor, clock, config.approval_timeout, id_, key_id_)) {}

  const std::string& id() const override { return id_; }
  const std::string& user_id() const override { return user_id_; }
  const std::string& key_id() const override { return key_id_; }
  const std::string& protocol_version() const override { return version_; }
  core::steady_time last_active() const override { return last_active_; }
  bool busy() const override { return !in_flight_.empty(); }
  event_stream_table& streams() override { return streams_; }
  bool can_elicit() const override { return approver_->can_elicit(); }
  void set_client_capabilities(const json& capabilities) override { approver_->set_client_capabilities(capabilities); }
  bool is_handle() const override { return style_ == session_style::handle; }

  asio::awaitable<std::optional<json>> handle(json message, notify_fn notify) override {
    auto self = shared_from_this();  // alive across the awaits, even if the table lets go
    last_active_ = clock_.steady_now();
    switch (kind_of(message)) {
      case message_kind::notification:
        on_notification(message);
        co_return std::nullopt;
      case message_kind::other:
        // A response to a request of ours (an elicitation), a late or unknown
        // one (dropped), or not JSON-RPC at all.
        if (approver_->deliver(message)) co_return std::nullopt;
        if (message.is_object() && message.contains("id") &&
            (message.contains("result") || message.contains("error"))) {
          co_return std::nullopt;
        }
        co_return jsonrpc::error(nullptr, jsonrpc::invalid_request,
                                 "not a JSON-RPC 2.0 request: it needs \"jsonrpc\": \"2.0\", a string \"method\" "
                                 "and a string or integer \"id\"");
      case message_kind::request:
        break;
    }
    const json id = message["id"];
    const std::string key = id.dump();
    if (in_flight_.contains(key)) {
      co_return jsonrpc::error(id, jsonrpc::invalid_request, "a request with this id is already in progress");
    }
    in_flight_[key] = {};
    json answer;
    try {
      answer = co_await dispatch(message, id, key, std::move(notify));
    } catch (const std::exception& e) {
      core::log_warn("mcp session {}: {} failed: {}", id_, string_field(message, "method"), e.what());
      answer = jsonrpc::error(id, jsonrpc::internal_error, "the server failed to handle this request");
    }
    last_active_ = clock_.steady_now();
    bool cancelled = in_flight_[key].cancelled;
    in_flight_.erase(key);
    if (cancelled) co_return std::nullopt;
    co_return answer;
  }

  asio::awaitable<void> close() override {
    auto self = shared_from_this();
    closed_ = true;
    // A run_task (or one-shot block) in flight is stopped with the session.
    for (auto& [request, call] : in_flight_) {
      if (call.stop) call.stop->request();
    }
    approver_->close();
    if (has_sandbox_ && deps_->execution) {
      drop_sandbox();
      // Also stops a block in flight: its request answers at once.
      co_await deps_->execution->end_session(user_id_, id_);
    }
  }

 private:
  asio::awaitable<json> dispatch(const json& message, const json& id, const std::string& key, notify_fn notify) {
    const std::string method(string_field(message, "method"));
    static const json no_params = json::object();
    auto params_it = message.find("params");
    if (params_it != message.end() && !params_it->is_object()) {
      co_return jsonrpc::error(id, jsonrpc::invalid_params, "params must be an object");
    }
    const json& params = params_it != message.end() ? *params_it : no_params;
    if (method == "initialize") co_return jsonrpc::result(id, initialize(params));
    if (method == "ping") co_return jsonrpc::result(id, json::object());
    if (method == "tools/list") {
      co_return jsonrpc::result(id, {{"tools", tool_definitions(style_ != session_style::protocol, !!deps_->agent)}});
    }
    if (method == "tools/call") co_return co_await call_tool(params, id, key, std::move(notify));
    if (method == "logging/setLevel") co_return set_log_level(params, id);
    if (deps_->skills && method.starts_with("resources/")) co_return co_await resources(method, params, id);
    const char* offered = deps_->skills ? "initialize, ping, tools/list, tools/call, logging/setLevel, "
                                          "resources/list, resources/read and resources/templates/list"
                                        : "initialize, ping, tools/list, tools/call and logging/setLevel";
    co_return jsonrpc::error(id, jsonrpc::method_not_found,
                             "method not found: " + method.substr(0, 100) + " (this server offers " + offered + ")");
  }

  // The user's skills as resources (skill_resources.hpp); the library reads
  // the disk, so off the I/O thread.
  asio::awaitable<json> resources(const std::string& method, const json& params, const json& id) {
    if (method == "resources/templates/list") co_return jsonrpc::result(id, skill_resource_templates());
    const skills::skill_library* library = deps_->skills.get();
    const std::string user = user_id_;
    if (method == "resources/list") {
      auto work = [library, user] { return list_skill_resources(*library, user); };
      auto listed = co_await core::run_blocking(deps_->blocking, std::move(work));
      if (!listed) co_return jsonrpc::error(id, jsonrpc::internal_error, listed.error().message);
      co_return jsonrpc::result(id, std::move(*listed));
    }
    if (method != "resources/read") {
      co_return jsonrpc::error(id, jsonrpc::method_not_found,
                               "method not found: " + method.substr(0, 100) +
                                   " (resources/list, resources/read and resources/templates/list are offered)");
    }
    const std::string uri(string_field(params, "uri"));
    if (uri.empty()) co_return jsonrpc::error(id, jsonrpc::invalid_params, "uri (a string) is required");
    auto work = [library, user, uri] { return read_skill_resource(*library, user, uri); };
    auto read = co_await core::run_blocking(deps_->blocking, std::move(work));
    if (read) co_return jsonrpc::result(id, std::move(*read));
    const auto& code = read.error().code;
    const bool missing = code == skills::errc::skill_not_found || code == skills::errc::invalid_skill_name ||
                         code == skills::errc::file_not_found;
    json answer = jsonrpc::error(id, missing ? resource_not_found : jsonrpc::internal_error, read.error().message);
    answer["error"]["data"] = {{"uri", uri.substr(0, 200)}};
    co_return answer;
  }

  json initialize(const json& params) {
    std::string asked(string_field(params, "protocolVersion"));
    const auto& versions = supported_versions();
    // The client's version when we speak it, else our newest: the client
    // then decides whether it can go on.
    version_ = std::find(versions.begin(), versions.end(), asked) != versions.end() ? asked : versions.front();
    approver_->set_client_capabilities(params.value("capabilities", json::object()));
    json capabilities{{"tools", {{"listChanged", false}}}, {"logging", json::object()}};
    if (deps_->skills) capabilities["resources"] = {{"listChanged", false}, {"subscribe", false}};
    return {{"protocolVersion", version_},
            {"capabilities", std::move(capabilities)},
            {"serverInfo", {{"name", "mcp-harness"}, {"title", "mcp-harness code mode"}, {"version", core::version()}}},
            {"instructions", instructions()}};
  }

  // The server sends no log messages of its own yet (what code logs comes
  // back in execute_code's answer); the level is checked and kept so that
  // clients which set it get the answer the protocol promises.
  json set_log_level(const json& params, const json& id) {
    static const std::vector<std::string_view> levels = {"debug", "info",     "notice", "warning",
                                                         "error", "critical", "alert",  "emergency"};
    auto level = string_field(params, "level");
    if (std::find(levels.begin(), levels.end(), level) == levels.end()) {
      return jsonrpc::error(id, jsonrpc::invalid_params,
                            "level must be one of debug, info, notice, warning, error, critical, alert, emergency");
    }
    log_level_ = std::string(level);
    return jsonrpc::result(id, json::object());
  }

  void on_notification(const json& message) {
    const std::string_view method = string_field(message, "method");
    if (method != "notifications/cancelled") return;  // initialized, roots/list_changed...: nothing to do
    const auto& params = message.contains("params") ? message["params"] : json::object();
    if (!params.is_object() || !params.contains("requestId")) return;
    auto it = in_flight_.find(params["requestId"].dump());
    if (it == in_flight_.end() || it->second.cancelled)
      return;  // finished already, or unknown: ignored, as the spec says
    it->second.cancelled = true;
    if (it->second.executing && it->second.stop) {
      core::log_info("mcp session {}: a running call (a one-shot block or an agent run) was cancelled; stopping it",
                     id_);
      it->second.stop->request();
    } else if (it->second.executing && has_sandbox_ && deps_->execution) {
      // The sandbox is killed, so the block ends at once; its variables go with it.
      core::log_info("mcp session {}: a running block was cancelled; stopping its sandbox", id_);
      drop_sandbox();
      note_ = "the previous block was cancelled, which ended its sandbox: variables from before are gone";
      core::spawn_logged(executor_, end_sandbox(shared_from_this()), "mcp session " + id_ + ": cancelling");
    }
  }

  static asio::awaitable<void> end_sandbox(std::shared_ptr<session_impl> self) {
    co_await self->deps_->execution->end_session(self->user_id_, self->id_);
  }

  asio::awaitable<json> call_tool(const json& params, const json& id, const std::string& key, notify_fn notify) {
    const std::string name(string_field(params, "name"));
    static const json no_args = json::object();
    auto args_it = params.find("arguments");
    if (args_it != params.end() && !args_it->is_object() && !args_it->is_null()) {
      co_return jsonrpc::error(id, jsonrpc::invalid_params, "arguments must be an object");
    }
    const json& args = args_it != params.end() && args_it->is_object() ? *args_it : no_args;
    json progress_token;
    if (auto meta = params.find("_meta");
        meta != params.end() && meta->is_object() && meta->contains("progressToken")) {
      progress_token = (*meta)["progressToken"];
    }
    if (name == search_tool_name || name == describe_tool_name) {
      if (!deps_->tools) co_return jsonrpc::result(id, tool_error("no MCP servers are configured on this server"));
      // The tools as this session's user reaches them (user-scoped servers).
      auto acting = deps_->tools->acting_for(user_id_);
      auto& tools = acting ? *acting : *deps_->tools;
      json out;  // no co_await inside ?: (GCC 12)
      if (name == search_tool_name) {
        out = co_await search_tools(tools, args);
      } else {
        out = co_await describe_tools(tools, args);
      }
      co_return jsonrpc::result(id, std::move(out));
    }
    if (name == execute_tool_name) {
      auto span = call_span(params, name);
      auto trace = span.parent();  // named: GCC 12 and temporaries in co_await
      auto out = co_await execute(args, key, std::move(progress_token), std::move(notify), std::move(trace));
      end_call_span(span, out);
      co_return jsonrpc::result(id, std::move(out));
    }
    if (name == run_task_tool_name && deps_->agent) {
      auto span = call_span(params, name);
      auto trace = span.parent();  // named: GCC 12 and temporaries in co_await
      auto out = co_await agent_task(args, key, std::move(progress_token), std::move(notify), std::move(trace));
      end_call_span(span, out);
      co_return jsonrpc::result(id, std::move(out));
    }
    const char* tools =
        style_ == session_style::protocol
            ? (deps_->agent ? "search_tools, describe_tools, execute_code and run_task"
                            : "search_tools, describe_tools and execute_code")
            : (deps_->agent ? "search_tools, describe_tools, execute_code, open_session, close_session "
                              "and run_task"
                            : "search_tools, describe_tools, execute_code, open_session and close_session");
    co_return jsonrpc::error(id, jsonrpc::invalid_params,
                             "unknown tool: " + name.substr(0, 100) + " (this server's tools are " + tools +
                                 "; the upstream tools are called from code with callMCPTool)");
  }

  // The MCP conventions' server span of a tools/call: the child of the
  // trace context in the request's _meta (the client's; over HTTP, the
  // request's own span when the client sent none, see routes/mcp.cpp).
  telemetry::span call_span(const json& params, const std::string& tool) const {
    auto span = telemetry::tracer::start_root(deps_->tracer, "tools/call " + tool, telemetry::span_kind::server,
                                              core::trace_context_from_meta(params.value("_meta", json())));
    span.set("mcp.method.name", "tools/call");
    span.set("gen_ai.tool.name", tool);
    return span;
  }
  static void end_call_span(telemetry::span& span, const json& result) {
    if (result.value("isError", false)) span.fail("tool_error");
  }

  // run_task: the agent's run as this session's caller; its approvals go to
  // the client on this request's stream, its steps are progress, and the
  // request's cancel cancels it (task_tool.cpp).
  asio::awaitable<json> agent_task(const json& args, const std::string& key, json progress_token, notify_fn notify,
                                   telemetry::span_parent trace) {
    if (closed_) co_return tool_error("this MCP session has ended");
    task_run_context context;
    context.trace = std::move(trace);
    context.user_id = user_id_;
    context.key_id = key_id_;
    context.admin = admin_;
    context.approver = approver_;
    // One call at a time puts approvals to the client (on its own stream).
    const bool another_running =
        std::any_of(in_flight_.begin(), in_flight_.end(), [](const auto& f) { return f.second.executing; });
    if (another_running) {
      co_return tool_error("this session is running another call: wait for it, or run the task from another session");
    }
    context.stop = in_flight_[key].stop = std::make_shared<execution::block_stop>();
    if (!progress_token.is_null() && notify) {
      auto count = std::make_shared<int>(0);
      context.progress = [notify, progress_token, count](std::string line) {
        notify(jsonrpc::notification(
            "notifications/progress",
            {{"progressToken", progress_token}, {"progress", ++*count}, {"message", std::move(line)}}));
      };
    }
    approver_->set_channel(notify);
    in_flight_[key].executing = in_flight_[key].agent_run = true;
    auto out = co_await run_task(deps_->agent, args, std::move(context));
    approver_->set_channel(nullptr);
    if (auto it = in_flight_.find(key); it != in_flight_.end()) it->second.executing = false;
    co_return out;
  }

  asio::awaitable<json> execute(const json& args, const std::string& key, json progress_token, notify_fn notify,
                                telemetry::span_parent trace) {
    auto code_it = args.find("code");
    if (code_it == args.end() || !code_it->is_string() || code_it->get_ref<const std::string&>().empty()) {
      co_return tool_error("code must be a non-empty string of JavaScript or Python");
    }
    std::string code = code_it->get<std::string>();
    if (code.size() > config_.code_max_chars) {
      co_return tool_error(fmt::format("code is {} bytes; at most {}", code.size(), config_.code_max_chars));
    }
    auto language_it = args.find("language");
    std::optional<sandbox::language> language = sandbox::language::javascript;
    if (language_it != args.end()) {
      language = language_it->is_string() ? sandbox::parse_language(language_it->get<std::string>()) : std::nullopt;
      if (!language) co_return tool_error("language must be \"javascript\" or \"python\"");
    }
    auto reset_it = args.find("reset");
    if (reset_it != args.end() && !reset_it->is_boolean()) co_return tool_error("reset must be true or false");
    const bool reset = reset_it != args.end() && reset_it->get<bool>();
    if (std::any_of(in_flight_.begin(), in_flight_.end(),
                    [](const auto& f) { return f.second.executing && f.second.agent_run; })) {
      co_return tool_error("this session is running a run_task: wait for it, or run code from another session");
    }
    if (!deps_->execution) co_return tool_error("this server has no sandbox configured (see GET /health)");
    if (closed_) co_return tool_error("this MCP session has ended");

    std::string note = std::exchange(note_, {});
    if (reset && has_sandbox_) {
      drop_sandbox();
      co_await deps_->execution->end_session(user_id_, id_);  // not_found (it idled out) is fine too
    }
    const bool had_sandbox = has_sandbox_;

    std::shared_ptr<progress_ticker> ticker;
    if (!progress_token.is_null() && notify) {
      ticker = std::make_shared<progress_ticker>(executor_, clock_);
      auto ticking = tick_progress(ticker, progress_token, notify, config_.progress_interval);
      core::spawn_logged(executor_, std::move(ticking), "mcp session " + id_ + ": progress");
    }
    execution::execute_request request;
    request.trace = std::move(trace);
    request.user_id = user_id_;
    request.key_id = key_id_;
    request.admin = admin_;
    request.code = std::move(code);
    request.language = *language;
    if (style_ != session_style::one_shot) request.session_id = id_;  // one-shot: a fresh sandbox, gone after
    request.approver = approver_;
    if (style_ == session_style::one_shot)
      request.stop = in_flight_[key].stop = std::make_shared<execution::block_stop>();
    // A call the tool policy asks about is put to the client on this
    // request's stream. Another execute_code of the session still running
    // keeps its own (this one gets session_busy).
    const bool another_running =
        std::any_of(in_flight_.begin(), in_flight_.end(), [](const auto& f) { return f.second.executing; });
    if (!another_running) approver_->set_channel(notify);
    in_flight_[key].executing = true;
    has_sandbox_ = style_ != session_style::one_shot;
    // Whether this block's sandbox is still the session's when it ends: a
    // cancel or reset meanwhile has dropped it, and a later block may have
    // opened the next one, which this block's outcome must not touch.
    const auto generation = sandbox_generation_;
    auto out = co_await deps_->execution->execute(std::move(request));
    // Asked while this request's stream is still the session's channel.
    std::string to_connect;
    if (out && !another_running) to_connect = co_await ask_to_connect(out->block);
    if (!another_running) approver_->set_channel(nullptr);
    const bool still_ours = generation == sandbox_generation_;
    if (out && had_sandbox && still_ours && note.empty() && out->opened) {
      // The execution service ended the sandbox after SANDBOX_IDLE_TIMEOUT_MS unused.
      note =
          "the session's sandbox had been idle too long and was ended; this code ran in a fresh one, so "
          "variables from earlier calls are gone";
    }
    if (auto it = in_flight_.find(key); it != in_flight_.end()) it->second.executing = false;
    if (ticker) {
      ticker->stopped = true;
      ticker->wake.notify_all();
    }
    if (!out) {
      if (out.error().code != execution::errc::session_busy && still_ours) drop_sandbox();
      if (out.error().code == execution::errc::session_busy) {
        co_return tool_error("another execute_code of this session is still running; wait for its answer first");
      }
      co_return tool_error("the code could not be run: " + out.error().describe());
    }
    // A one-shot sandbox always ends with its block: nothing to say.
    if (out->ended && still_ours && style_ != session_style::one_shot) {
      drop_sandbox();
      if (note.empty()) {
        note =
            "the sandbox ended with this block (it timed out or broke); the next call starts a fresh one "
            "without earlier variables";
      }
    }
    const bridge::exec_result& block = out->block;
    json block_json = bridge::outcome_json(block);
    json structured{
        {"ok", block.ok}, {"logs", std::move(block_json["logs"])}, {"toolCalls", std::move(block_json["toolCalls"])}};
    if (!block.ok) {
      structured["error"] = block.error;
    } else {
      structured["result"] = block.value;
    }
    if (!block.files_report.is_null()) structured["saved"] = block.files_report;
    if (!to_connect.empty()) note += (note.empty() ? "" : "; ") + to_connect;
    if (!note.empty()) structured["note"] = note;
    std::string text = result_text(block, note);
    co_return tool_result(std::move(text), std::move(structured), !block.ok);
  }

  // The block called user-scoped servers the user has not connected their
  // account to: the link to do it goes to the client as a URL-mode
  // elicitation when it declared that, else into the result's note. Returns
  // the note (empty: nothing to connect).
  asio::awaitable<std::string> ask_to_connect(const bridge::exec_result& block) {
    std::set<std::string> servers;
    for (const auto& call : block.tool_calls) {
      if (call.error_code == "mcp_needs_authorization") servers.insert(call.name.substr(0, call.name.find("__")));
    }
    if (servers.empty() || !deps_->tools) co_return std::string();
    auto gateway = deps_->tools->acting_for(user_id_);
    if (!gateway) gateway = deps_->tools;
    std::string note;
    for (const auto& server : servers) {
      auto entry = co_await gateway->connect(server);
      if (!entry || !(*entry).value("authorizationUrl", json()).is_string()) continue;
      const std::string url = (*entry)["authorizationUrl"];
      const std::string why = "MCP server " + server + " needs your account connected: open " + url +
                              " and approve access, then run the code again";
      // Named: GCC 12 mishandles temporaries made in a co_await expression.
      std::string message = "Connect your account to MCP server " + server + " so that your code can use it.";
      auto action = co_await approver_->elicit_url(url, std::move(message));
      note += (note.empty() ? "" : "; ") +
              (action ? "the client was asked to open the link that connects your account to MCP server " + server +
                            " (" + *action + "); run the code again once approved"
                      : why);
    }
    co_return note;
  }

  // The execution service no longer holds (or is about to end) this
  // session's sandbox; the next block opens a new one.
  void drop_sandbox() {
    has_sandbox_ = false;
    ++sandbox_generation_;
  }

  asio::any_io_executor executor_;
  core::clock& clock_;
  std::shared_ptr<const face_deps> deps_;
  face_config config_;
  std::string id_;
  std::string user_id_;
  std::string key_id_;
  bool admin_;  // opened with admin rights: the tool policy's "role": "admin"
  session_style style_;
  std::string version_;
  core::steady_time last_active_;
  std::map<std::string, in_flight> in_flight_;  // by the request id's JSON text
  bool has_sandbox_ = false;                    // the execution service may hold a sandbox for this session
  std::uint64_t sandbox_generation_ = 0;        // counts the sandboxes dropped (drop_sandbox)
  bool closed_ = false;
  std::string note_;       // said with the next execute_code's answer
  std::string log_level_;  // as the client set it (logging/setLevel)
  event_stream_table streams_;
  std::shared_ptr<face_approver> approver_;  // the sandbox's filter holds it too
};

}  // namespace

std::shared_ptr<mcp_session> create_session(const asio::any_io_executor& executor, core::clock& clock,
                                            std::shared_ptr<const face_deps> deps, const face_config& config,
                                            std::string id, std::string user_id, std::string key_id, bool admin,
                                            session_style style) {
  return std::make_shared<session_impl>(executor, clock, std::move(deps), config, std::move(id), std::move(user_id),
                                        std::move(key_id), admin, style);
}

}  // namespace harness::mcp_server
