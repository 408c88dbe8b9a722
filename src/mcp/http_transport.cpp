// Streamable HTTP transport on the one outbound HTTP client (net): POSTs each
// message and reads what comes back (a JSON body or an SSE stream, resumed
// with Last-Event-ID when the server ends it early), keeps a GET stream open
// for the server's own messages, and sends the session id, the negotiated
// protocol version and the configured headers with every request. Works
// with http:// and https:// servers; a 401 or 403 goes to the authorizer
// (OAuth) and the request is sent again once it has a token.
#include <map>
#include <set>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/core/async_event.hpp"
#include "harness/core/json_parse.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/core/trace_context.hpp"
#include "harness/core/with_deadline.hpp"
#include "harness/mcp/errors.hpp"
#include "harness/mcp/transport.hpp"
#include "harness/net/errors.hpp"
#include "harness/net/http_client.hpp"
#include "harness/net/url.hpp"
#include "http_authorizer.hpp"
#include "message_errors.hpp"
#include "modern_wire.hpp"
#include "sse_parser.hpp"

namespace harness::mcp {
namespace asio = boost::asio;
namespace modern = detail::modern;
using nlohmann::json;

namespace {

constexpr auto default_retry = std::chrono::milliseconds(1000);
constexpr int max_resume_attempts = 5;
constexpr int max_get_failures = 5;
// Times one request may be refused and authorized again (a new token, then
// a step-up to more scopes) before the refusal stands.
constexpr int max_authorizations_per_request = 3;
constexpr std::size_t error_body_bytes = 4096;

using stream_ptr = std::shared_ptr<net::response_stream>;

class http_transport final : public transport, public std::enable_shared_from_this<http_transport> {
 public:
  http_transport(asio::any_io_executor executor, core::clock& clock, server_config config, client_limits limits,
                 std::shared_ptr<net::http_client> http, std::shared_ptr<http_authorizer> authorizer)
      : executor_(std::move(executor)),
        clock_(clock),
        config_(std::move(config)),
        limits_(limits),
        http_(std::move(http)),
        authorizer_(std::move(authorizer)) {}

  asio::awaitable<status> open(transport_handlers handlers) override {
    handlers_ = std::move(handlers);
    auto url = net::parse_url(config_.url);
    if (!url) co_return make_error(mcp::errc::invalid_config, url.error().message, url.error().hint);
    co_return status{};
  }

  asio::awaitable<status> send(json message) override {
    const bool abandonable =
        modern::is_modern(protocol_version_) && message.contains("method") && message.contains("id");
    if (!abandonable) co_return co_await post_message(std::move(message));
    // 2026-07-28: giving up on a request closes its POST (abandon()), at any
    // point: before its answer's head came as well as while it is read.
    auto key = message["id"].dump();
    auto given_up = std::make_shared<core::async_event>(executor_);
    abandons_[key] = given_up;
    auto posting = post_message(std::move(message));  // named locals: GCC 12 and temporaries in co_await
    auto waiting = given_up->wait();
    auto group = asio::experimental::make_parallel_group(asio::co_spawn(executor_, std::move(posting), asio::deferred),
                                                         asio::co_spawn(executor_, std::move(waiting), asio::deferred));
    auto [order, failure, outcome, wait_failure] =
        co_await std::move(group).async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
    (void)wait_failure;
    if (auto it = abandons_.find(key); it != abandons_.end() && it->second == given_up) abandons_.erase(it);
    if (order[0] == 1) {
      co_return make_error(core::errc::cancelled, "the request was given up, and its connection closed");
    }
    if (failure) std::rethrow_exception(failure);
    co_return outcome;
  }

  // The 2026-07-28 era's cancellation over HTTP: the request's POST is closed
  // (its transfer aborted), and no notification is sent.
  bool abandon(const json& id) override {
    if (!modern::is_modern(protocol_version_)) return false;
    if (auto it = abandons_.find(id.dump()); it != abandons_.end()) it->second->set();
    return true;
  }

 private:
  // The request's W3C trace context (params._meta, which the client set) as
  // the headers an HTTP server's tracing reads; only a well-formed one.
  static void add_trace_headers(const json& message, net::header_list& headers) {
    auto params = message.find("params");
    if (params == message.end() || !params->is_object()) return;
    auto trace = core::trace_context_from_meta(params->value("_meta", json()));
    if (!trace) return;
    headers.emplace_back("traceparent", trace->traceparent_for(trace->parent_id));
    if (!trace->state.empty()) headers.emplace_back("tracestate", trace->state);
  }

  // One POST of `message` and its answer (send() without the abandon race).
  asio::awaitable<status> post_message(json message) {
    auto self = shared_from_this();
    const bool is_request = message.contains("method") && message.contains("id");
    const bool is_initialize = is_request && message["method"] == "initialize";
    std::optional<json> want_id;
    if (is_request) want_id = message["id"];

    net::request post = make_request("POST");
    post.headers.emplace_back("Content-Type", "application/json");
    if (modern::is_modern(protocol_version_) && message.contains("method")) {
      // 2026-07-28: the headers repeat the body's method and target, so that a
      // gateway can route without reading the body.
      post.headers.emplace_back("Mcp-Method", modern::header_safe(message["method"].get<std::string>()));
      if (auto name = modern::routing_name(message)) post.headers.emplace_back("Mcp-Name", modern::header_safe(*name));
    }
    add_trace_headers(message, post.headers);
    post.body = message.dump(-1, ' ', false, json::error_handler_t::replace);
    // A JSON answer arrives only when the work is done: allow the hard cap
    // (the client's own deadline cancels the request sooner).
    post.timeout = limits_.max_request_time;
    auto opened = co_await open_authorized(std::move(post));
    if (!opened) co_return opened.error();
    auto stream = std::move(*opened);
    auto guard = track(stream);
    const auto& head = stream->head();
    if (is_initialize) {
      if (auto sid = head.header("mcp-session-id")) session_id_ = *sid;
    }
    const long code = head.status;
    if (code == 202 || code == 204) co_return status{};
    if (code == 404 && !session_id_.empty() && !is_initialize) {
      session_id_.clear();
      co_return make_error(mcp::errc::session_expired, "the server no longer knows our MCP session (HTTP 404)");
    }
    if (code >= 400 && code < 500 && want_id && modern::is_modern(protocol_version_)) {
      // A new-era server answers a request it refuses (an unsupported version,
      // a header mismatch) with a 4xx whose body is the JSON-RPC error.
      co_return co_await read_refusal(*stream, *want_id);
    }
    if (code < 200 || code >= 300) co_return co_await status_error("POST", *stream);
    const std::string content_type = head.header("content-type").value_or("");
    if (content_type.rfind("text/event-stream", 0) == 0) {
      sse_state state;
      bool answered = co_await read_sse(*stream, state, want_id, limits_.max_request_time);
      // 2025-11-25: the server may end the stream early and expect us to resume it.
      for (int attempt = 0;
           !answered && want_id && !state.last_id.empty() && attempt < max_resume_attempts && !closing_; ++attempt) {
        co_await sleep(state.retry);
        answered = co_await resume_get(state, want_id);
      }
      if (state.unreadable_answer) co_return *state.unreadable_answer;
      if (!answered && want_id) {
        if (state.failure) co_return *state.failure;  // a timeout
        co_return make_error(mcp::errc::connection_lost,
                             "the SSE stream for the request ended " +
                                 std::string(state.cut_mid_event ? "in the middle of an event " : "") +
                                 "without a response",
                             "check that the MCP server is running at that URL");
      }
      co_return status{};
    }
    co_return co_await read_json_answer(*stream, want_id);
  }

  void set_protocol_version(const std::string& version) override { protocol_version_ = version; }

  void on_initialized() override {
    if (get_stream_running_ || closing_) return;
    get_stream_running_ = true;
    core::spawn_logged(executor_, get_loop(shared_from_this()), "mcp " + config_.name + ": event stream");
  }

  void reset_session() override { session_id_.clear(); }

  asio::awaitable<void> close() override {
    if (closing_) co_return;
    closing_ = true;
    auto self = shared_from_this();
    for (auto* s : live_) s->cancel();
    if (!session_id_.empty()) {
      // Tell the server the session is over (it may answer 405: then it just
      // expires). The token as it is: closing never waits for a renewal.
      net::request r = make_request("DELETE");
      r.timeout = std::chrono::seconds(2);
      if (authorizer_) {
        if (auto header = authorizer_->current()) r.headers.emplace_back("Authorization", *header);
      }
      co_await http_->fetch(std::move(r));
    }
  }

  std::string describe() const override { return "http:" + net::printable_url(config_.url); }
  int pid() const override { return 0; }

 private:
  struct sse_state {
    std::string last_id;
    std::chrono::milliseconds retry = default_retry;
    bool cut_mid_event = false;              // the last stream ended inside an event
    std::optional<error> unreadable_answer;  // the answer came but could not be read
    std::optional<error> failure;            // the stream failed (timeout, cut off)
  };

  struct body_read {
    std::string text;
    bool over_limit = false;       // stopped reading at the limit
    std::optional<error> failure;  // the body did not end well
  };

  // Keeps a stream in live_ (close() cancels what is live) while it is read.
  struct live_guard {
    http_transport* owner;
    net::response_stream* stream;
    ~live_guard() { owner->live_.erase(stream); }
  };
  live_guard track(const stream_ptr& stream) {
    live_.insert(stream.get());
    return live_guard{this, stream.get()};
  }

  net::request make_request(std::string method) const {
    net::request r;
    r.method = std::move(method);
    r.url = config_.url;
    r.headers.emplace_back("Accept", r.method == "GET" ? "text/event-stream" : "application/json, text/event-stream");
    if (!session_id_.empty()) r.headers.emplace_back("Mcp-Session-Id", session_id_);
    // The header exists from 2025-06-18 on (in the new era, from its first request); a server of an older version sees
    // no header, as its clients sent none.
    if (protocol_version_ >= "2025-06-18") r.headers.emplace_back("MCP-Protocol-Version", protocol_version_);
    for (const auto& [name, value] : config_.headers) r.headers.emplace_back(name, value);
    r.max_response_bytes = limits_.max_message_bytes;
    return r;
  }

  error transport_error(const std::string& what, const error& e) const {
    if (e.code == core::errc::cancelled && closing_) {
      return make_error(mcp::errc::connection_lost, "the transport is closed");
    }
    const bool timeout = e.code == net::errc::timeout;
    const bool tls = e.code == net::errc::tls_failed;
    return make_error(timeout ? mcp::errc::timeout : mcp::errc::connection_lost,
                      what.empty() ? e.message : what + ": " + e.message,
                      tls ? e.hint : "check that the MCP server is running at that URL");
  }

  // Opens the request with the authorizer's header; a 401 or 403 the
  // authorizer can answer (a new token, more scopes) sends it again.
  asio::awaitable<result<stream_ptr>> open_authorized(net::request r) {
    if (closing_) co_return make_error(mcp::errc::connection_lost, "the transport is closed");
    const auto plain_headers = r.headers;
    for (int attempt = 0;; ++attempt) {
      r.headers = plain_headers;
      std::optional<std::string> sent;
      if (authorizer_) {
        sent = co_await authorizer_->authorization();
        if (sent) r.headers.emplace_back("Authorization", *sent);
      }
      auto opened = co_await http_->open(r);
      if (!opened) co_return transport_error(r.method, opened.error());
      stream_ptr stream = std::move(*opened);
      const long code = stream->head().status;
      if (!authorizer_ || (code != 401 && code != 403)) co_return stream;
      auto challenges = stream->head().header_values("www-authenticate");
      if (code == 403 && challenges.empty()) co_return stream;  // a refusal that is not about the token
      if (attempt == max_authorizations_per_request) co_return stream;
      stream->cancel();
      auto authorized = co_await authorizer_->challenged(code, std::move(challenges), std::move(sent));
      if (!authorized) co_return authorized.error();
      if (closing_) co_return make_error(mcp::errc::connection_lost, "the transport is closed");
    }
  }

  // The next piece of a body within `idle` (nullopt: no limit).
  asio::awaitable<result<std::string>> read_within(net::response_stream& stream,
                                                   std::optional<std::chrono::milliseconds> idle) {
    if (!idle) co_return co_await stream.read();
    auto reading = stream.read();
    auto piece = co_await core::with_deadline(clock_, std::move(reading), *idle);
    if (!piece) {
      co_return make_error(net::errc::timeout, "got nothing more from " + net::printable_url(config_.url) + " within " +
                                                   std::to_string(idle->count()) + " ms");
    }
    co_return std::move(*piece);
  }

  asio::awaitable<body_read> read_body(net::response_stream& stream, std::size_t limit) {
    body_read body;
    while (true) {
      auto piece = co_await read_within(stream, limits_.request_timeout);
      if (!piece) {
        body.failure = piece.error();
        break;
      }
      if (piece->empty()) break;
      body.text += *piece;
      if (body.text.size() > limit) {
        body.over_limit = true;
        stream.cancel();
        break;
      }
    }
    co_return body;
  }

  // `what` is a C string: a std::string temporary in a co_await expression is destroyed twice by GCC 12.
  asio::awaitable<error> status_error(const char* what, net::response_stream& stream) {
    std::string body = (co_await read_body(stream, error_body_bytes)).text;
    co_return http_status_error(what, stream.head().status, body);
  }

  error http_status_error(const char* what, long code, const std::string& body) const {
    std::string hint;
    if ((code == 401 || code == 403) && !authorizer_) {
      hint = "the server wants credentials: give it headers (Authorization) or an oauth block in its mcpServers entry";
    }
    return make_error(mcp::errc::http_status,
                      std::string(what) + " " + net::printable_url(config_.url) + " answered HTTP " +
                          std::to_string(code) + (body.empty() ? "" : ": " + detail::printable(body, 300)),
                      hint);
  }

  // A 4xx body that is the JSON-RPC error answering `id`: delivered as that
  // answer. Anything else is the HTTP status error it would have been.
  asio::awaitable<status> read_refusal(net::response_stream& stream, const json& id) {
    const long code = stream.head().status;
    auto body = co_await read_body(stream, error_body_bytes);
    json parsed = core::parse_json(body.text);  // depth-limited: the body is the server's
    if (!body.over_limit && !body.failure && parsed.is_object() && parsed.contains("error") &&
        parsed["error"].is_object() && parsed.value("id", json()) == id) {
      handlers_.on_message(std::move(parsed));
      co_return status{};
    }
    co_return http_status_error("POST", code, body.text);
  }

  // A JSON answer to a POST: delivered, or, when it is too large, cut short or not
  // JSON, reported (to fail its request at once) and returned as the error.
  asio::awaitable<status> read_json_answer(net::response_stream& stream, const std::optional<json>& want_id) {
    std::optional<std::size_t> declared;
    if (auto length = stream.head().header("content-length")) {
      try {
        declared = static_cast<std::size_t>(std::stoull(*length));
      } catch (...) {
      }
    }
    auto body = co_await read_body(stream, limits_.max_message_bytes);
    if (body.over_limit) {
      // Without a Content-Length, reading stopped past the limit: "more than" the limit is what is known.
      const std::size_t size = declared ? *declared : limits_.max_message_bytes;
      co_return unreadable_answer(detail::message_too_large(config_.name, size, limits_.max_message_bytes, !declared),
                                  body.text, want_id);
    }
    if (body.failure && body.failure->code != net::errc::connection_failed) {
      co_return transport_error("POST", *body.failure);
    }
    if (body.failure) {
      const std::string of = declared ? " of " + std::to_string(*declared) : "";
      co_return unreadable_answer(make_error(mcp::errc::connection_lost,
                                             "POST " + net::printable_url(config_.url) +
                                                 ": the connection ended after " + std::to_string(body.text.size()) +
                                                 of + " bytes of the answer, cut short (" + body.failure->message + ")",
                                             "check that the MCP server is running at that URL"),
                                  body.text, want_id);
    }
    if (body.text.find_first_not_of(" \t\r\n") == std::string::npos) co_return status{};
    auto parsed = detail::parse_message(body.text);
    if (!parsed) {
      co_return unreadable_answer(detail::message_not_json(config_.name, body.text, parsed.error().message), body.text,
                                  want_id);
    }
    deliver(std::move(*parsed), want_id);
    co_return status{};
  }

  // A POST's body can only answer that POST's request, so one without a readable id
  // (and no method) is taken as that answer.
  error unreadable_answer(error problem, std::string_view text, const std::optional<json>& want_id) {
    report_unreadable(problem, identify_message(text), want_id);
    return problem;
  }

  // Hands the client a message it cannot have; true when it was the answer to want_id.
  bool report_unreadable(const error& problem, message_identity identity, const std::optional<json>& want_id) {
    if (want_id && !identity.has_method && !identity.id) identity.id = *want_id;
    const bool answer = want_id && !identity.has_method && identity.id == *want_id;
    if (handlers_.on_undeliverable) handlers_.on_undeliverable({problem, std::move(identity)});
    return answer;
  }

  // Reads an SSE body, delivering each message; true once the response to want_id came.
  asio::awaitable<bool> read_sse(net::response_stream& stream, sse_state& state, const std::optional<json>& want_id,
                                 std::optional<std::chrono::milliseconds> idle_limit) {
    bool answered = false;
    // An answer to want_id that cannot be read ends the wait as surely as one that can.
    auto unreadable = [&](const error& problem, message_identity identity) {
      if (report_unreadable(problem, std::move(identity), want_id)) {
        answered = true;
        state.unreadable_answer = problem;
      }
    };
    sse_parser sse(
        limits_.max_message_bytes,
        [&](const sse_event& event) {
          if (event.id) state.last_id = *event.id;
          if (event.data.empty() || event.event != "message") return;  // priming / other events
          auto message = detail::parse_message(event.data);
          if (!message) {
            unreadable(detail::message_not_json(config_.name, event.data, message.error().message),
                       identify_message(event.data));
            return;
          }
          if (deliver(std::move(*message), want_id)) answered = true;
        },
        [&](const message_identity& identity) {
          unreadable(detail::message_too_large(config_.name, identity.bytes, limits_.max_message_bytes), identity);
        });
    while (!closing_) {
      auto piece = co_await read_within(stream, idle_limit);
      if (!piece) {
        // A stream cut off is a stream that ended (resumed below when it can be);
        // one that went quiet past its limit is a timeout.
        if (piece.error().code == net::errc::timeout) state.failure = transport_error("", piece.error());
        break;
      }
      if (piece->empty()) break;
      sse.feed(*piece);
      if (sse.retry_ms()) state.retry = std::chrono::milliseconds(*sse.retry_ms());
      if (answered && want_id) break;
    }
    state.cut_mid_event = !answered && sse.mid_event();
    co_return answered;
  }

  // GET with Last-Event-ID to resume a broken stream; true once want_id was answered.
  asio::awaitable<bool> resume_get(sse_state& state, const std::optional<json>& want_id) {
    net::request r = make_request("GET");
    r.headers.emplace_back("Last-Event-ID", state.last_id);
    r.timeout = limits_.request_timeout;
    auto opened = co_await open_authorized(std::move(r));
    if (!opened || (*opened)->head().status != 200) co_return false;
    auto guard = track(*opened);
    co_return co_await read_sse(**opened, state, want_id, limits_.max_request_time);
  }

  // The standalone GET stream for server-initiated messages; reconnects honouring retry.
  static asio::awaitable<void> get_loop(std::shared_ptr<http_transport> self) {
    sse_state state;
    int failures = 0;
    while (!self->closing_ && failures < max_get_failures) {
      net::request r = self->make_request("GET");
      if (!state.last_id.empty()) r.headers.emplace_back("Last-Event-ID", state.last_id);
      r.timeout = self->limits_.request_timeout;
      auto opened = co_await self->open_authorized(std::move(r));
      if (!opened) {
        ++failures;
        co_await self->sleep(state.retry * failures);
        continue;
      }
      auto stream = std::move(*opened);
      auto guard = self->track(stream);
      const long code = stream->head().status;
      const std::string content_type = stream->head().header("content-type").value_or("");
      if (code != 200 || content_type.rfind("text/event-stream", 0) != 0) {
        // 405: the server offers no GET stream; anything else: it does not want one from us.
        core::log_debug("mcp {}: no GET event stream (HTTP {})", self->config_.name, code);
        break;
      }
      failures = 0;
      co_await self->read_sse(*stream, state, std::nullopt, std::nullopt);
      if (!self->closing_) co_await self->sleep(state.retry);
    }
    self->get_stream_running_ = false;
  }

  asio::awaitable<void> sleep(std::chrono::milliseconds duration) {
    auto timer = clock_.make_timer(executor_);
    timer->expires_at(clock_.steady_now() + duration);
    co_await timer->wait();
  }

  // Hands messages to the client; true when one is the response to want_id.
  bool deliver(json message, const std::optional<json>& want_id) {
    bool answered = false;
    auto one = [&](json item) {
      if (!item.is_object()) return;
      if (want_id && !item.contains("method") && item.contains("id") && item["id"] == *want_id) answered = true;
      if (handlers_.on_message) handlers_.on_message(std::move(item));
    };
    if (message.is_array()) {
      for (auto& item : message) one(std::move(item));
    } else {
      one(std::move(message));
    }
    return answered;
  }

  asio::any_io_executor executor_;
  core::clock& clock_;
  server_config config_;
  client_limits limits_;
  std::shared_ptr<net::http_client> http_;
  std::shared_ptr<http_authorizer> authorizer_;
  transport_handlers handlers_;
  std::string session_id_;
  std::string protocol_version_;
  std::set<net::response_stream*> live_;
  // 2026-07-28 requests in flight, by id: setting one's event closes its POST.
  std::map<std::string, std::shared_ptr<core::async_event>> abandons_;
  bool closing_ = false;
  bool get_stream_running_ = false;
};

}  // namespace

std::shared_ptr<transport> create_http_transport(asio::any_io_executor executor, core::clock& clock,
                                                 server_config config, client_limits limits,
                                                 std::shared_ptr<net::http_client> http,
                                                 std::shared_ptr<http_authorizer> authorizer) {
  return std::make_shared<http_transport>(std::move(executor), clock, std::move(config), limits, std::move(http),
                                          std::move(authorizer));
}

}  // namespace harness::mcp
