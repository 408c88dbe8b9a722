// JSON-RPC 2.0 session over a transport. Requests wait on a per-request signal
// that the response (or a progress notification) wakes, until their deadline;
// no other state is shared between coroutines, and everything runs on one
// executor.
#include "client.hpp"

#include "elicitation.hpp"
#include "modern_calls.hpp"
#include "modern_wire.hpp"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "harness/core/async_signal.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/pausable_deadline.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/mcp/errors.hpp"

namespace harness::mcp {
namespace asio = boost::asio;
namespace modern = detail::modern;
using nlohmann::json;

// Every version the official SDKs still accept, newest first: the client asks
// for the first, and works in whichever of these the server answers with. What
// the older ones lack (structuredContent, outputSchema, title, annotations, the
// MCP-Protocol-Version header, error data) is optional everywhere it is read.
const std::vector<std::string>& supported_protocol_versions() {
  static const std::vector<std::string> versions = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
  return versions;
}

namespace {

constexpr int method_not_found = -32601;
// How long a server/discover probe waits at most: a server of the 2025 era may
// not answer a request before initialize at all.
constexpr auto max_probe_time = std::chrono::milliseconds(10000);
constexpr int invalid_request = -32600;

struct pending_request {
  pending_request(const asio::any_io_executor& ex, core::clock& clock) : wake(ex, clock), deadline(ex, clock) {}
  core::async_signal wake;  // an answer came, or the deadline passed
  std::optional<result<json>> outcome;
  // Moved on by progress (to `timeout` from then, never past hard_deadline)
  // and held while a person answers an elicitation; at its expiry `expired`
  // turns true.
  core::pausable_deadline deadline;
  core::steady_time hard_deadline;
  bool expired = false;
  std::chrono::milliseconds timeout{0};
  std::string method;  // for error messages
  // Answers the server's elicitations while this request runs (call_deadline::elicit).
  std::function<asio::awaitable<std::optional<json>>(json)> elicit;
  bool eliciting = false;   // an answer is being waited for: the deadline is held meanwhile
  bool overlapped = false;  // another request was in flight at some point while this one ran
};

std::string id_key(const json& id) {
  return id.dump();
}

class client_impl final : public client,
                          public detail::request_sender,
                          public std::enable_shared_from_this<client_impl> {
 public:
  client_impl(asio::any_io_executor executor, core::clock& clock, std::shared_ptr<transport> t, client_limits limits,
              client_info info)
      : executor_(std::move(executor)),
        clock_(clock),
        transport_(std::move(t)),
        limits_(limits),
        info_(std::move(info)),
        handshake_done_(executor_, clock) {}

  asio::awaitable<result<server_info>> connect() override {
    std::weak_ptr<client_impl> weak = shared_from_this();
    transport_handlers handlers;
    handlers.on_message = [weak](json message) {
      if (auto self = weak.lock()) self->on_message(std::move(message));
    };
    handlers.on_undeliverable = [weak](undeliverable_message message) {
      if (auto self = weak.lock()) self->on_undeliverable(std::move(message));
    };
    handlers.on_closed = [weak](error e) {
      if (auto self = weak.lock()) self->on_transport_closed(std::move(e));
    };
    if (auto opened = co_await transport_->open(std::move(handlers)); !opened) co_return opened.error();
    open_ = true;
    if (info_.era == protocol_era::legacy) co_return co_await handshake();
    co_return co_await discover();
  }

  bool restart_as_legacy() const override { return restart_as_legacy_; }

  asio::awaitable<result<json>> request(std::string method, json params, call_deadline timeout) override {
    auto self = shared_from_this();
    const auto started = clock_.steady_now();
    const std::uint64_t session = session_generation_;
    auto outcome = co_await send_request(method, params, timeout);
    if (!outcome && outcome.error().code == mcp::errc::session_expired && method != "initialize") {
      // The HTTP server forgot our session: start a fresh one and try once more.
      auto again = co_await reinitialize(session);
      if (!again) co_return again.error();
      outcome = co_await send_request(method, params, timeout);
    }
    if (modern_ && outcome && detail::continues(*outcome)) {
      // The whole call has the hard deadline one request has (send_request).
      const auto end = started + std::max(limits_.max_request_time, timeout.timeout.value_or(limits_.request_timeout));
      co_return co_await detail::finish_modern_call(*this, clock_, executor_, method, std::move(params), timeout,
                                                    std::move(*outcome), end);
    }
    co_return outcome;
  }

  // request_sender: one step of a new-era call (modern_calls.cpp).
  asio::awaitable<result<json>> send(const std::string& method, json params, call_deadline deadline) override {
    auto self = shared_from_this();
    co_return co_await send_request(method, std::move(params), std::move(deadline));
  }

  asio::awaitable<status> notify(std::string method, json params) override {
    if (!open_) co_return make_error(mcp::errc::not_connected, "the MCP client is not connected");
    json message = {{"jsonrpc", "2.0"}, {"method", std::move(method)}};
    if (!params.is_null()) message["params"] = std::move(params);
    co_return co_await transport_->send(std::move(message));
  }

  asio::awaitable<result<std::vector<json>>> list_tools() override {
    std::vector<json> tools;
    std::optional<std::string> cursor;
    for (std::size_t page = 0; page < limits_.max_pages; ++page) {
      json params = json::object();
      if (cursor) params["cursor"] = *cursor;
      auto answer = co_await request("tools/list", params, {});
      if (!answer) co_return answer.error();
      if (!answer->is_object() || !answer->contains("tools") || !(*answer)["tools"].is_array()) {
        co_return make_error(mcp::errc::bad_response, "tools/list result has no tools array");
      }
      // Every entry as listed: which ones are usable is the registry's call (tool_list_filter).
      for (auto& tool : (*answer)["tools"]) tools.push_back(std::move(tool));
      if (!answer->contains("nextCursor") || !(*answer)["nextCursor"].is_string()) co_return tools;
      std::string next = (*answer)["nextCursor"].get<std::string>();
      if (cursor && next == *cursor) {
        co_return make_error(mcp::errc::endless_pagination, "tools/list returned the same nextCursor twice");
      }
      cursor = std::move(next);
    }
    co_return make_error(mcp::errc::endless_pagination,
                         "tools/list still had a nextCursor after " + std::to_string(limits_.max_pages) + " pages",
                         "the server paginates without end");
  }

  asio::awaitable<result<json>> call_tool(std::string name, json arguments, call_deadline timeout) override {
    // The MCP conventions' client span; the tool is one the server listed.
    auto span = timeout.trace.child("tools/call", telemetry::span_kind::client);
    if (span.recording()) {  // nothing built for a span that goes nowhere: this is every tool call's path
      span.rename("tools/call " + name);
      span.set("mcp.method.name", "tools/call");
      span.set("gen_ai.operation.name", "execute_tool");
      span.set("gen_ai.tool.name", name);
      span.set("mcp.protocol.version", server_.protocol_version);
    }
    json params = {{"name", std::move(name)},
                   {"arguments", arguments.is_null() ? json::object() : std::move(arguments)}};
    // W3C trace context in _meta, the one place every transport carries it
    // (stdio has no headers); the HTTP transport repeats it as headers.
    if (span.context().valid()) {
      params["_meta"] = {{"traceparent", span.context().traceparent()}};
      if (!span.context().state.empty()) params["_meta"]["tracestate"] = span.context().state;
    }
    auto answer = co_await request("tools/call", std::move(params), timeout);
    if (!answer) {
      span.fail(answer.error().code.wire_name());
    } else if (auto error = answer->find("isError");
               error != answer->end() && error->is_boolean() && error->get<bool>()) {
      span.fail("mcp_tool_error");
    }
    co_return answer;
  }

  void on_tools_changed(std::function<void()> callback) override { on_tools_changed_ = std::move(callback); }
  void on_closed(std::function<void(error)> callback) override { on_closed_ = std::move(callback); }

  asio::awaitable<void> close() override {
    auto self = shared_from_this();
    if (closed_) co_return;
    closed_ = true;
    open_ = false;
    fail_all(make_error(mcp::errc::connection_lost, "the MCP client was closed"));
    if (listen_pause_) listen_pause_->cancel();
    co_await transport_->close();
  }

  bool connected() const override { return open_ && initialized_; }
  const server_info& server() const override { return server_; }
  std::size_t in_flight() const override {
    const bool listening = listen_id_ && pending_.contains(id_key(json(*listen_id_)));
    return pending_.size() - (listening ? 1 : 0);
  }
  int pid() const override { return transport_->pid(); }

 private:
  // One fresh handshake for all the requests that found the session `seen` expired:
  // the first runs it, the others wait for it and then retry on the new session.
  asio::awaitable<result<server_info>> reinitialize(std::uint64_t seen) {
    while (handshaking_) co_await handshake_done_.wait();
    if (session_generation_ != seen) {
      if (!initialized_) co_return make_error(mcp::errc::not_connected, "re-initializing the MCP session failed");
      co_return server_;
    }
    core::log_info("mcp: session expired on {}; re-initializing", transport_->describe());
    handshaking_ = true;
    transport_->reset_session();
    auto outcome = co_await handshake();
    handshaking_ = false;
    ++session_generation_;
    handshake_done_.notify_all();
    co_return outcome;
  }

  // 2026-07-28 ("Backward compatibility"): server/discover first, with the
  // envelope of the new era. A server that lists 2026-07-28 is of the new
  // era: no initialize, no session, the envelope on every request. Any other
  // answer (an error of any code, an HTTP 4xx, a result without our version)
  // is a server of the 2025 era: initialize. A process that gave no answer,
  // or ended, may be in no state to initialize: it is started again for it
  // (restart_as_legacy). An HTTP server that cannot be reached is an error.
  asio::awaitable<result<server_info>> discover() {
    transport_->set_protocol_version(modern::version);
    // Within half the start's own deadline: a silent process still has time to be started again.
    const auto probe_timeout = std::clamp(std::min(limits_.request_timeout, limits_.startup_timeout / 2),
                                          std::chrono::milliseconds(1), max_probe_time);
    const std::string method = "server/discover";  // named locals, no temporaries in co_await (GCC 12)
    const call_deadline probe(probe_timeout);
    json params = json::object();
    auto answer = co_await send_request(method, std::move(params), probe);
    if (answer) {
      if (auto info = modern_server(*answer)) {
        modern_ = true;
        server_ = std::move(*info);
        initialized_ = true;
        start_listening();
        co_return server_;
      }
    }
    transport_->set_protocol_version("");
    if (closed_) co_return make_error(mcp::errc::connection_lost, "the MCP client was closed");
    if (!answer) {
      const auto& code = answer.error().code;
      const bool lost = code == mcp::errc::connection_lost || code == mcp::errc::not_connected;
      if ((lost || code == mcp::errc::timeout) && transport_->pid() > 0) {
        restart_as_legacy_ = true;
        co_return make_error(code,
                             "server " + transport_->describe() +
                                 (lost ? " ended on server/discover" : " gave no answer to server/discover") +
                                 "; a server of the 2025 era, started again for initialize",
                             "nothing to do: the harness remembers this and starts it with initialize");
      }
      if (lost) co_return answer.error();
      core::log_debug("mcp {}: server/discover failed ({}); initializing as for a server of the 2025 era",
                      transport_->describe(), shown(answer.error().message));
    }
    co_return co_await handshake();
  }

  // 2026-07-28 has no unsolicited notifications: a server's list_changed
  // comes only on a subscriptions/listen stream the client opens. One stream
  // per connection when the server says its tools change, opened again when
  // it ends; each acknowledgement lists the tools again (on_message), as a
  // change may have come before the stream was there.
  void start_listening() {
    const json& tools = server_.capabilities.contains("tools") ? server_.capabilities["tools"] : json();
    if (!tools.is_object() || tools.value("listChanged", false) != true) return;
    core::spawn_logged(executor_, listen_loop(shared_from_this()), "mcp: listening on " + transport_->describe());
  }

  static asio::awaitable<void> listen_loop(std::shared_ptr<client_impl> self) {
    const std::string method = "subscriptions/listen";  // named locals, no temporaries in co_await (GCC 12)
    auto pause = std::chrono::milliseconds(1000);
    self->listen_pause_ = self->clock_.make_timer(self->executor_);  // close() cancels it
    auto& timer = self->listen_pause_;
    for (bool first = true; self->open_ && !self->closed_; first = false) {
      if (!first) {
        timer->expires_at(self->clock_.steady_now() + pause);
        co_await timer->wait();
        if (!self->open_ || self->closed_) break;
      }
      json params = {{"notifications", {{"toolsListChanged", true}}}};
      // No deadline of its own: the stream lives until the server ends it, the
      // connection breaks (over HTTP, a read that waits past MCP_MAX_REQUEST_MS
      // with not even a keep-alive) or the client closes. One stream at a time.
      const call_deadline deadline(std::chrono::milliseconds(std::chrono::hours(24)));
      const auto opened = self->clock_.steady_now();
      self->listen_id_ = self->next_id_;  // the id send_request gives it
      auto ended = co_await self->send_request(method, std::move(params), deadline);
      self->listen_id_.reset();
      if (!ended && ended.error().code == mcp::errc::jsonrpc_error) {
        core::log_info("mcp {}: no subscriptions/listen ({}); its tools are listed again only at a restart",
                       self->transport_->describe(), self->shown(ended.error().message));
        co_return;
      }
      // A stream that ended soon is opened again later and later (up to a minute).
      const bool short_lived = self->clock_.steady_now() - opened < std::chrono::seconds(30);
      pause = short_lived ? std::min(pause * 2, std::chrono::milliseconds(60000)) : std::chrono::milliseconds(1000);
    }
  }

  // What a server/discover result says of a server of the new era; nullopt
  // when it does not list the version this client speaks.
  static std::optional<server_info> modern_server(const json& answer) {
    if (!answer.is_object() || !answer.contains("supportedVersions") || !answer["supportedVersions"].is_array()) {
      return std::nullopt;
    }
    const auto& versions = answer["supportedVersions"];
    if (std::find(versions.begin(), versions.end(), json(modern::version)) == versions.end()) return std::nullopt;
    server_info info;
    info.protocol_version = modern::version;
    const json meta = answer.value("_meta", json::object());
    if (meta.is_object() && meta.contains(modern::server_info_key) && meta[modern::server_info_key].is_object()) {
      info.info = meta[modern::server_info_key];
    } else if (answer.contains("serverInfo") && answer["serverInfo"].is_object()) {
      info.info = answer["serverInfo"];
    }
    if (answer.contains("capabilities") && answer["capabilities"].is_object()) {
      info.capabilities = answer["capabilities"];
    }
    if (answer.contains("instructions") && answer["instructions"].is_string()) {
      info.instructions = answer["instructions"].get<std::string>();
    }
    return info;
  }

  asio::awaitable<result<server_info>> handshake() {
    initialized_ = false;
    // Elicitation: a person behind the call may answer (the MCP face's
    // client); with nobody, the schema's defaults or a decline.
    json params = {{"protocolVersion", supported_protocol_versions().front()},
                   {"capabilities", {{"elicitation", json::object()}}},
                   {"clientInfo", {{"name", info_.name}, {"version", info_.version}}}};
    auto answer =
        co_await send_request("initialize", params, std::max(limits_.request_timeout, std::chrono::milliseconds(1)));
    if (!answer) co_return answer.error();
    if (!answer->is_object() || !(*answer)["protocolVersion"].is_string()) {
      co_return make_error(mcp::errc::bad_response, "initialize result has no protocolVersion");
    }
    server_info info;
    info.protocol_version = (*answer)["protocolVersion"].get<std::string>();
    const auto& supported = supported_protocol_versions();
    if (std::find(supported.begin(), supported.end(), info.protocol_version) == supported.end()) {
      std::string list;
      for (const auto& v : supported) list += (list.empty() ? "" : ", ") + v;
      co_return make_error(mcp::errc::unsupported_protocol,
                           "server " + transport_->describe() + " answered with MCP protocol version " +
                               info.protocol_version + ", which this client does not support",
                           "supported versions: " + list + "; upgrade the server or the harness");
    }
    if (answer->contains("serverInfo") && (*answer)["serverInfo"].is_object()) info.info = (*answer)["serverInfo"];
    if (answer->contains("capabilities") && (*answer)["capabilities"].is_object()) {
      info.capabilities = (*answer)["capabilities"];
    }
    if (answer->contains("instructions") && (*answer)["instructions"].is_string()) {
      info.instructions = (*answer)["instructions"].get<std::string>();
    }
    transport_->set_protocol_version(info.protocol_version);
    if (auto sent = co_await notify("notifications/initialized", json()); !sent) co_return sent.error();
    server_ = info;
    initialized_ = true;
    transport_->on_initialized();
    co_return info;
  }

  asio::awaitable<result<json>> send_request(const std::string& method, json params, call_deadline deadline) {
    if (!open_) co_return make_error(mcp::errc::not_connected, "the MCP client is not connected");
    auto self = shared_from_this();
    const std::int64_t id = next_id_++;
    const json id_json = id;
    auto entry = std::make_shared<pending_request>(executor_, clock_);
    entry->timeout = deadline.timeout.value_or(limits_.request_timeout);
    entry->method = method;
    entry->elicit = std::move(deadline.elicit);
    const auto start = clock_.steady_now();
    entry->hard_deadline = start + std::max(limits_.max_request_time, entry->timeout);
    if (deadline.not_after) entry->hard_deadline = std::min(entry->hard_deadline, *deadline.not_after);
    {
      std::weak_ptr<pending_request> weak = entry;
      auto on_expiry = [weak] {
        if (auto e = weak.lock()) {
          e->expired = true;
          e->wake.notify_all();
        }
      };
      auto on_shift = [weak](core::steady_time::duration by) {
        if (auto e = weak.lock()) e->hard_deadline += by;
      };
      entry->deadline.start(std::min(start + entry->timeout, entry->hard_deadline), on_expiry, on_shift);
    }
    const std::string key = id_key(id_json);
    if (!pending_.empty()) {
      entry->overlapped = true;
      for (auto& [other_key, other] : pending_) other->overlapped = true;
    }
    pending_[key] = entry;

    if (!params.is_object()) params = json::object();
    if (modern_ || method == "server/discover") modern::add_envelope(params, info_.name, info_.version);
    if (method != "initialize") params["_meta"]["progressToken"] = id;
    json message = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};

    // HTTP send() reads the whole response stream, so it runs beside the wait
    // rather than before it: the deadline applies to the stream too. A stdio
    // send() only queues the line, so it runs here, without a coroutine of its own.
    auto transport = transport_;
    if (transport->queues_sends()) {
      auto sent = co_await transport->send(std::move(message));
      if (!sent) resolve(key, sent.error());
    } else {
      core::spawn_logged(
          executor_,
          [self, transport, key, message = std::move(message)]() mutable -> asio::awaitable<void> {
            auto sent = co_await transport->send(std::move(message));
            if (!sent) self->resolve(key, sent.error());
          },
          "mcp: sending " + method);
    }

    while (!entry->outcome) {
      if (entry->expired) {
        abandoned_at_ = clock_.steady_now();
        pending_.erase(key);
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(clock_.steady_now() - start).count();
        if (open_ && !transport_->abandon(id)) {
          // Tell the server we gave up; a late answer is dropped (no pending entry).
          json cancel = json::object();
          cancel["requestId"] = id;
          cancel["reason"] = "timed out after " + std::to_string(ms) + " ms";
          co_await notify("notifications/cancelled", std::move(cancel));
        }
        co_return make_error(mcp::errc::timeout,
                             method + " on " + transport_->describe() + " got no answer within " + std::to_string(ms) +
                                 " ms; the request was cancelled",
                             "raise the timeout (MCP_REQUEST_TIMEOUT_MS or timeoutMs) if the tool is slow");
      }
      co_await entry->wake.wait();
    }
    entry->deadline.stop();
    pending_.erase(key);
    co_return std::move(*entry->outcome);
  }

  void resolve(const std::string& key, result<json> outcome) {
    auto it = pending_.find(key);
    if (it == pending_.end()) return;
    if (!it->second->outcome) it->second->outcome = std::move(outcome);
    it->second->wake.notify_all();
  }

  void on_message(json message) {
    if (!message.is_object()) return;
    const bool has_method = message.contains("method") && message["method"].is_string();
    const bool has_id = message.contains("id") && (message["id"].is_number_integer() || message["id"].is_string());
    if (!has_method) {
      if (!has_id) return;  // a response without id (e.g. a parse error report): nothing waits for it
      const std::string key = id_key(message["id"]);
      if (message.contains("error") && message["error"].is_object()) {
        const auto& e = message["error"];
        std::string text = std::to_string(e.value("code", 0)) + ": " + e.value("message", std::string("(no message)"));
        if (e.contains("data"))
          text += " " + e["data"].dump(-1, ' ', false, json::error_handler_t::replace).substr(0, 500);
        resolve(key, make_error(mcp::errc::jsonrpc_error, text));
      } else if (message.contains("result")) {
        resolve(key, message["result"]);
      } else {
        resolve(key, make_error(mcp::errc::bad_response, "response has neither result nor error"));
      }
      return;
    }
    const std::string method = message["method"].get<std::string>();
    if (has_id) {
      on_server_request(method, message["id"], message.value("params", json::object()));
      return;
    }
    const json params = message.value("params", json::object());
    if (method == "notifications/progress") {
      on_progress(params);
    } else if (method == "notifications/tools/list_changed" || method == "notifications/subscriptions/acknowledged") {
      // An acknowledged listen stream (2026-07-28) lists the tools again too: a
      // change between the last listing and the subscription came on no stream.
      if (on_tools_changed_) on_tools_changed_();
    } else if (method == "notifications/message") {
      core::log_debug("mcp {} log: {}", transport_->describe(),
                      shown(params.dump(-1, ' ', false, json::error_handler_t::replace)).substr(0, 1000));
    }
  }

  // Which request a message we could not read failed. By its id when that could be
  // read; a message with a method is the server's request or notification, never an
  // answer. A message without a readable id that was cut off or broken before its
  // end may have been the answer to any request in flight: all of them fail (with
  // one in flight, that is the one). A server that breaks its protocol stream is
  // broken, and a caller's retry is better than every request waiting out its
  // deadline. A whole message without an id answers nothing, so it fails nothing.
  void on_undeliverable(undeliverable_message message) {
    const auto& who = message.identity;
    const error& problem = message.problem;
    if (!who.looks_like_message) {
      core::log_warn("mcp {}: ignored output that is not a JSON-RPC message ({})", transport_->describe(),
                     shown(problem.message));
      return;
    }
    if (who.has_method) {
      core::log_warn("mcp {}: dropped a request or notification from the server: {}", transport_->describe(),
                     shown(problem.describe()));
      if (who.id && !who.id->is_null()) answer_unreadable_request(*who.id, problem);
      return;
    }
    if (who.id) {
      auto it = pending_.find(id_key(*who.id));
      if (it == pending_.end()) {
        core::log_warn("mcp {}: dropped the answer to request {}, which no longer waits: {}", transport_->describe(),
                       who.id->dump(), shown(problem.describe()));
        return;
      }
      resolve(it->first, request_failed(it->second->method, problem, ""));
      return;
    }
    if (who.complete) {
      core::log_warn("mcp {}: dropped a message without id: {}", transport_->describe(), shown(problem.describe()));
      return;
    }
    core::log_warn("mcp {}: a message without a readable id was lost; failing the {} request(s) in flight: {}",
                   transport_->describe(), pending_.size(), shown(problem.describe()));
    const std::string why = pending_.size() == 1
                                ? ""
                                : " (its id could not be read, so each of the " + std::to_string(pending_.size()) +
                                      " requests in flight on this server failed)";
    for (auto& [key, entry] : pending_) resolve(key, request_failed(entry->method, problem, why));
  }

  error request_failed(const std::string& method, const error& problem, const std::string& why) const {
    return make_error(problem.code,
                      method + " on " + transport_->describe() + " got no usable answer: " + problem.message + why,
                      problem.hint);
  }

  // The server waits for an answer to its request, even one we could not read.
  void answer_unreadable_request(const json& id, const error& problem) {
    send_in_background(
        {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", invalid_request}, {"message", problem.message}}}});
  }

  // Text of the server's own, as it may be logged (a user's secrets replaced).
  std::string shown(std::string text) const { return info_.redact ? info_.redact(std::move(text)) : text; }

  void on_progress(const json& params) {
    if (!params.is_object() || !params.contains("progressToken")) return;
    auto it = pending_.find(id_key(params["progressToken"]));
    if (it == pending_.end()) return;
    auto& entry = *it->second;
    entry.deadline.reset(std::min(clock_.steady_now() + entry.timeout, entry.hard_deadline));
  }

  // Requests the server sends us get an answer, never silence.
  void on_server_request(const std::string& method, const json& id, const json& params) {
    json reply = {{"jsonrpc", "2.0"}, {"id", id}};
    if (method == "elicitation/create") {
      // A person may be behind a call in flight, though not one this can tell:
      // then nothing is accepted on their behalf.
      const bool someone =
          std::any_of(pending_.begin(), pending_.end(), [](const auto& p) { return !!p.second->elicit; });
      answer_elicitation(shared_from_this(), id, params, elicitor(), someone);
      return;
    }
    if (method == "ping") {
      reply["result"] = json::object();
    } else if (method == "roots/list") {
      reply["result"] = {{"roots", json::array()}};
    } else if (method == "sampling/createMessage") {
      reply["error"] = {{"code", method_not_found},
                        {"message", method + " is not supported by this client (capability not declared)"}};
    } else if (method.empty()) {
      reply["error"] = {{"code", invalid_request}, {"message", "empty method"}};
    } else {
      reply["error"] = {{"code", method_not_found}, {"message", "method not found: " + method}};
    }
    send_in_background(std::move(reply));
  }

  // The request an elicitation belongs to. Nothing in the message says
  // (stdio; and a server may ask on its own), so only when it cannot be
  // another's: exactly one request in flight, which has someone to ask, has
  // run alone from its start, and no request was given up on (timed out
  // here, maybe still running there) within the longest a request may take.
  // Otherwise nobody is asked.
  std::shared_ptr<pending_request> elicitor() const {
    if (pending_.size() != 1) return nullptr;
    const auto& entry = pending_.begin()->second;
    if (!entry->elicit || entry->overlapped || entry->eliciting) return nullptr;
    if (abandoned_at_ && clock_.steady_now() - *abandoned_at_ < limits_.max_request_time) return nullptr;
    return entry;
  }

  // Asks `asker`'s handler (else answers alone) and replies. The wait for a
  // person does not count against the request's deadlines: they move on by it.
  static asio::awaitable<void> elicitation_reply(std::shared_ptr<client_impl> self, json id, json params,
                                                 std::shared_ptr<pending_request> asker, bool someone_behind) {
    std::optional<json> answer;
    if (asker) {
      asker->eliciting = true;  // one at a time: elicitor() passes over it meanwhile
      asker->deadline.hold();   // the wait for a person does not count; the release moves both deadlines on
      answer = co_await asker->elicit(params);
      asker->eliciting = false;
      asker->deadline.release();
    }
    json reply = {{"jsonrpc", "2.0"}, {"id", id}};
    if (answer && answer->is_object()) {
      reply["result"] = std::move(*answer);
    } else if (someone_behind && !asker) {
      reply["result"] = {{"action", "decline"}};
    } else if (auto alone = elicitation_without_anyone(params)) {
      reply["result"] = std::move(*alone);
    } else {
      reply["error"] = {{"code", -32602}, {"message", alone.error().message}};
    }
    co_await self->transport_->send(std::move(reply));
  }

  void answer_elicitation(std::shared_ptr<client_impl> self, const json& id, const json& params,
                          std::shared_ptr<pending_request> asker, bool someone_behind) {
    auto reply = elicitation_reply(std::move(self), id, params, std::move(asker), someone_behind);  // a local: GCC 12
    core::spawn_logged(executor_, std::move(reply), "mcp: answering an elicitation");
  }

  // Answers to the server's requests are sent beside whatever else runs; a failed send
  // means the connection is gone, which on_closed reports.
  void send_in_background(json message) {
    auto self = shared_from_this();
    core::spawn_logged(
        executor_,
        [self, message = std::move(message)]() mutable -> asio::awaitable<void> {
          co_await self->transport_->send(std::move(message));
        },
        "mcp: answering the server");
  }

  void fail_all(const error& e) {
    auto pending = std::move(pending_);
    pending_.clear();
    for (auto& [key, entry] : pending) {
      if (!entry->outcome) entry->outcome = e;
      entry->wake.notify_all();
    }
  }

  void on_transport_closed(error e) {
    if (closed_) return;
    open_ = false;
    initialized_ = false;
    fail_all(e);
    if (on_closed_) on_closed_(std::move(e));
  }

  asio::any_io_executor executor_;
  core::clock& clock_;
  std::shared_ptr<transport> transport_;
  client_limits limits_;
  client_info info_;
  server_info server_;
  std::unordered_map<std::string, std::shared_ptr<pending_request>> pending_;
  std::int64_t next_id_ = 1;
  std::optional<core::steady_time> abandoned_at_;  // the last request given up on (timed out here)
  std::uint64_t session_generation_ = 0;           // bumped by each re-initialize
  bool modern_ = false;                            // the server answered server/discover: 2026-07-28
  bool restart_as_legacy_ = false;                 // see restart_as_legacy()
  std::optional<std::int64_t> listen_id_;          // the subscriptions/listen request's id while it is open
  std::unique_ptr<core::timer> listen_pause_;      // the listen loop's wait before it opens a stream again
  bool handshaking_ = false;
  core::async_signal handshake_done_;  // wakes the requests that wait for a re-initialize
  bool open_ = false;
  bool initialized_ = false;
  bool closed_ = false;
  std::function<void()> on_tools_changed_;
  std::function<void(error)> on_closed_;
};

}  // namespace

std::shared_ptr<client> create_client(asio::any_io_executor executor, core::clock& clock,
                                      std::shared_ptr<transport> transport, client_limits limits, client_info info) {
  return std::make_shared<client_impl>(std::move(executor), clock, std::move(transport), limits, std::move(info));
}

}  // namespace harness::mcp
