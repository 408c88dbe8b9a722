// Streamable HTTP transport on Boost.Beast. Why Beast rather than libcurl: the
// transport lives on the I/O thread's io_context, and Beast gives us coroutine
// reads of an endless SSE body piece by piece (response_parser + read_some)
// with a per-step deadline (tcp_stream::expires_after) and cancellation by
// closing the socket; curl's multi interface would need its own socket-action
// glue on Asio for the same, and its write callbacks invert the control flow
// of a stream we want to parse as it arrives.
#include <set>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/mcp/errors.hpp"
#include "harness/mcp/transport.hpp"
#include "message_errors.hpp"
#include "sse_parser.hpp"

namespace harness::mcp {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using nlohmann::json;
using tcp = asio::ip::tcp;

namespace {

constexpr auto connect_timeout = std::chrono::seconds(10);
constexpr auto default_retry = std::chrono::milliseconds(1000);
constexpr int max_resume_attempts = 5;
constexpr int max_get_failures = 5;

struct parsed_url {
  std::string host;
  std::string port = "80";
  std::string target = "/";
};

result<parsed_url> parse_url(const std::string& url) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0)
    return make_error(mcp::errc::invalid_config, "only http:// URLs are supported: " + url);
  parsed_url out;
  std::string rest = url.substr(scheme.size());
  const std::size_t slash = rest.find_first_of("/?");
  std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos) out.target = rest.substr(slash);
  if (out.target.front() == '?') out.target = "/" + out.target;
  if (authority.find('@') != std::string::npos) {
    return make_error(mcp::errc::invalid_config, "credentials in the URL are not supported",
                      "use headers.Authorization");
  }
  if (!authority.empty() && authority.front() == '[') {
    const std::size_t close = authority.find(']');
    if (close == std::string::npos) return make_error(mcp::errc::invalid_config, "bad IPv6 host in " + url);
    out.host = authority.substr(1, close - 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':') out.port = authority.substr(close + 2);
  } else {
    const std::size_t colon = authority.rfind(':');
    out.host = authority.substr(0, colon);
    if (colon != std::string::npos) out.port = authority.substr(colon + 1);
  }
  if (out.host.empty() || out.port.empty()) return make_error(mcp::errc::invalid_config, "no host in " + url);
  return out;
}

using stream_ptr = std::shared_ptr<beast::tcp_stream>;
using response_parser = http::response_parser<http::string_body>;

class http_transport final : public transport, public std::enable_shared_from_this<http_transport> {
 public:
  http_transport(asio::any_io_executor executor, server_config config, client_limits limits)
      : executor_(std::move(executor)), config_(std::move(config)), limits_(limits) {}

  asio::awaitable<status> open(transport_handlers handlers) override {
    handlers_ = std::move(handlers);
    auto url = parse_url(config_.url);
    if (!url) co_return url.error();
    url_ = *url;
    co_return status{};
  }

  asio::awaitable<status> send(json message) override {
    auto self = shared_from_this();
    const bool is_request = message.contains("method") && message.contains("id");
    const bool is_initialize = is_request && message["method"] == "initialize";
    std::optional<json> want_id;
    if (is_request) want_id = message["id"];

    auto stream = co_await connect();
    if (!stream) co_return stream.error();
    auto guard = track(*stream);
    auto request = make_request(http::verb::post);
    request.set(http::field::content_type, "application/json");
    request.body() = message.dump(-1, ' ', false, json::error_handler_t::replace);
    request.prepare_payload();
    (*stream)->expires_after(connect_timeout);
    auto [wec, wn] = co_await http::async_write(**stream, request, asio::as_tuple(asio::use_awaitable));
    if (wec) co_return io_error("POST", wec);

    beast::flat_buffer buffer;
    response_parser parser;
    parser.body_limit(boost::none);  // SSE bodies are endless; we cap per event instead
    // A JSON answer arrives only when the work is done: allow the hard cap (the
    // client's own deadline cancels the request sooner).
    (*stream)->expires_after(limits_.max_request_time);
    auto [hec, hn] = co_await http::async_read_header(**stream, buffer, parser, asio::as_tuple(asio::use_awaitable));
    if (hec) co_return io_error("POST", hec);
    const auto& head = parser.get();
    const unsigned code = head.result_int();
    if (is_initialize) {
      auto sid = head.find("Mcp-Session-Id");
      if (sid != head.end()) session_id_ = std::string(sid->value());
    }
    if (code == 202 || code == 204) co_return status{};
    if (code == 404 && !session_id_.empty() && !is_initialize) {
      session_id_.clear();
      co_return make_error(mcp::errc::session_expired, "the server no longer knows our MCP session (HTTP 404)");
    }
    const std::string content_type(head[http::field::content_type]);
    if (code < 200 || code >= 300) {
      std::string body = (co_await read_body(**stream, buffer, parser, 4096)).text;
      co_return make_error(mcp::errc::http_status, "POST " + config_.url + " answered HTTP " + std::to_string(code) +
                                                       (body.empty() ? "" : ": " + body.substr(0, 300)));
    }
    if (content_type.rfind("text/event-stream", 0) == 0) {
      sse_state state;
      bool answered = co_await read_sse(**stream, buffer, parser, state, want_id, limits_.max_request_time);
      // 2025-11-25: the server may end the stream early and expect us to resume it.
      for (int attempt = 0;
           !answered && want_id && !state.last_id.empty() && attempt < max_resume_attempts && !closing_; ++attempt) {
        co_await sleep(state.retry);
        answered = co_await resume_get(state, want_id);
      }
      if (state.unreadable_answer) co_return *state.unreadable_answer;
      if (!answered && want_id) {
        co_return make_error(mcp::errc::connection_lost,
                             "the SSE stream for the request ended " +
                                 std::string(state.cut_mid_event ? "in the middle of an event " : "") +
                                 "without a response",
                             "check that the MCP server is running at that URL");
      }
      co_return status{};
    }
    co_return co_await read_json_answer(**stream, buffer, parser, want_id);
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
    for (auto& s : live_) s->close();
    live_.clear();
    if (!session_id_.empty()) {
      // Tell the server the session is over (it may answer 405: then it just expires).
      if (auto stream = co_await connect()) {
        auto request = make_request(http::verb::delete_);
        (*stream)->expires_after(std::chrono::seconds(2));
        auto [ec, n] = co_await http::async_write(**stream, request, asio::as_tuple(asio::use_awaitable));
        if (!ec) {
          beast::flat_buffer buffer;
          http::response<http::string_body> response;
          co_await http::async_read(**stream, buffer, response, asio::as_tuple(asio::use_awaitable));
        }
        (*stream)->close();
      }
    }
  }

  std::string describe() const override { return "http:" + config_.url; }
  int pid() const override { return 0; }

 private:
  struct sse_state {
    std::string last_id;
    std::chrono::milliseconds retry = default_retry;
    bool cut_mid_event = false;              // the last stream ended inside an event
    std::optional<error> unreadable_answer;  // the answer came but could not be read
  };

  struct body_read {
    std::string text;
    bool over_limit = false;          // stopped reading at the limit
    boost::system::error_code error;  // the connection failed before the body ended
  };

  // Removes a stream from live_ when its operation ends.
  struct live_guard {
    http_transport* owner;
    stream_ptr stream;
    ~live_guard() { owner->live_.erase(stream); }
  };
  live_guard track(const stream_ptr& stream) {
    live_.insert(stream);
    return live_guard{this, stream};
  }

  http::request<http::string_body> make_request(http::verb verb) const {
    http::request<http::string_body> request{verb, url_.target, 11};
    request.set(http::field::host, url_.host + ":" + url_.port);
    request.set(http::field::user_agent, "mcp-harness");
    request.set(http::field::accept,
                verb == http::verb::get ? "text/event-stream" : "application/json, text/event-stream");
    if (!session_id_.empty()) request.set("Mcp-Session-Id", session_id_);
    if (!protocol_version_.empty()) request.set("MCP-Protocol-Version", protocol_version_);
    for (const auto& [name, value] : config_.headers) request.set(name, value);
    return request;
  }

  asio::awaitable<result<stream_ptr>> connect() {
    if (closing_) co_return make_error(mcp::errc::connection_lost, "the transport is closed");
    tcp::resolver resolver(executor_);
    auto [rec, endpoints] = co_await resolver.async_resolve(url_.host, url_.port, asio::as_tuple(asio::use_awaitable));
    if (rec) co_return io_error("resolve", rec);
    auto stream = std::make_shared<beast::tcp_stream>(executor_);
    stream->expires_after(connect_timeout);
    auto [cec, ep] = co_await stream->async_connect(endpoints, asio::as_tuple(asio::use_awaitable));
    if (cec) co_return io_error("connect", cec);
    co_return stream;
  }

  error io_error(const std::string& what, const boost::system::error_code& ec) const {
    const bool timeout = ec == beast::error::timeout;
    return make_error(timeout ? mcp::errc::timeout : mcp::errc::connection_lost,
                      what + " " + config_.url + " failed: " + (timeout ? "timed out" : ec.message()),
                      "check that the MCP server is running at that URL");
  }

  asio::awaitable<body_read> read_body(beast::tcp_stream& stream, beast::flat_buffer& buffer, response_parser& parser,
                                       std::size_t limit) {
    body_read body;
    while (!parser.is_done()) {
      stream.expires_after(limits_.request_timeout);
      auto [ec, n] = co_await http::async_read_some(stream, buffer, parser, asio::as_tuple(asio::use_awaitable));
      body.text += parser.get().body();
      parser.get().body().clear();
      if (body.text.size() > limit) {
        body.over_limit = true;
        break;
      }
      if (ec) {
        body.error = ec;
        break;
      }
    }
    co_return body;
  }

  // A JSON answer to a POST: delivered, or, when it is too large, cut short or not
  // JSON, reported (to fail its request at once) and returned as the error.
  asio::awaitable<status> read_json_answer(beast::tcp_stream& stream, beast::flat_buffer& buffer,
                                           response_parser& parser, const std::optional<json>& want_id) {
    const auto declared = parser.content_length();
    auto body = co_await read_body(stream, buffer, parser, limits_.max_message_bytes);
    if (body.over_limit) {
      const std::size_t size = declared ? static_cast<std::size_t>(*declared) : body.text.size();
      co_return unreadable_answer(detail::message_too_large(config_.name, size, limits_.max_message_bytes, !declared),
                                  body.text, want_id);
    }
    if (body.error == beast::error::timeout) co_return io_error("POST", body.error);
    if (body.error) {
      const std::string of = declared ? " of " + std::to_string(*declared) : "";
      co_return unreadable_answer(
          make_error(mcp::errc::connection_lost,
                     "POST " + config_.url + ": the connection ended after " + std::to_string(body.text.size()) + of +
                         " bytes of the answer, cut short (" + body.error.message() + ")",
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
  asio::awaitable<bool> read_sse(beast::tcp_stream& stream, beast::flat_buffer& buffer, response_parser& parser,
                                 sse_state& state, const std::optional<json>& want_id,
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
    while (!parser.is_done() && !closing_) {
      if (idle_limit) {
        stream.expires_after(*idle_limit);
      } else {
        stream.expires_never();
      }
      auto [ec, n] = co_await http::async_read_some(stream, buffer, parser, asio::as_tuple(asio::use_awaitable));
      if (!parser.get().body().empty()) {
        sse.feed(parser.get().body());
        parser.get().body().clear();
      }
      if (sse.retry_ms()) state.retry = std::chrono::milliseconds(*sse.retry_ms());
      if (ec || (answered && want_id)) break;
    }
    state.cut_mid_event = !answered && sse.mid_event();
    co_return answered;
  }

  // GET with Last-Event-ID to resume a broken stream; true once want_id was answered.
  asio::awaitable<bool> resume_get(sse_state& state, const std::optional<json>& want_id) {
    auto stream = co_await connect();
    if (!stream) co_return false;
    auto guard = track(*stream);
    auto request = make_request(http::verb::get);
    request.set("Last-Event-ID", state.last_id);
    (*stream)->expires_after(connect_timeout);
    auto [wec, wn] = co_await http::async_write(**stream, request, asio::as_tuple(asio::use_awaitable));
    if (wec) co_return false;
    beast::flat_buffer buffer;
    response_parser parser;
    parser.body_limit(boost::none);
    auto [hec, hn] = co_await http::async_read_header(**stream, buffer, parser, asio::as_tuple(asio::use_awaitable));
    if (hec || parser.get().result_int() != 200) co_return false;
    co_return co_await read_sse(**stream, buffer, parser, state, want_id, limits_.max_request_time);
  }

  // The standalone GET stream for server-initiated messages; reconnects honouring retry.
  static asio::awaitable<void> get_loop(std::shared_ptr<http_transport> self) {
    sse_state state;
    int failures = 0;
    while (!self->closing_ && failures < max_get_failures) {
      auto stream = co_await self->connect();
      if (!stream) {
        ++failures;
        co_await self->sleep(state.retry * failures);
        continue;
      }
      auto guard = self->track(*stream);
      auto request = self->make_request(http::verb::get);
      if (!state.last_id.empty()) request.set("Last-Event-ID", state.last_id);
      (*stream)->expires_after(connect_timeout);
      auto [wec, wn] = co_await http::async_write(**stream, request, asio::as_tuple(asio::use_awaitable));
      beast::flat_buffer buffer;
      response_parser parser;
      parser.body_limit(boost::none);
      boost::system::error_code hec = wec;
      if (!wec) {
        auto [ec, n] = co_await http::async_read_header(**stream, buffer, parser, asio::as_tuple(asio::use_awaitable));
        hec = ec;
      }
      if (hec) {
        ++failures;
        co_await self->sleep(state.retry * failures);
        continue;
      }
      const unsigned code = parser.get().result_int();
      const std::string content_type(parser.get()[http::field::content_type]);
      if (code != 200 || content_type.rfind("text/event-stream", 0) != 0) {
        // 405: the server offers no GET stream; anything else: it does not want one from us.
        core::log_debug("mcp {}: no GET event stream (HTTP {})", self->config_.name, code);
        break;
      }
      failures = 0;
      co_await self->read_sse(**stream, buffer, parser, state, std::nullopt, std::nullopt);
      if (!self->closing_) co_await self->sleep(state.retry);
    }
    self->get_stream_running_ = false;
  }

  asio::awaitable<void> sleep(std::chrono::milliseconds duration) {
    asio::steady_timer timer(executor_);
    timer.expires_after(duration);
    co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
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
  server_config config_;
  client_limits limits_;
  transport_handlers handlers_;
  parsed_url url_;
  std::string session_id_;
  std::string protocol_version_;
  std::set<stream_ptr> live_;
  bool closing_ = false;
  bool get_stream_running_ = false;
};

}  // namespace

std::shared_ptr<transport> create_http_transport(asio::any_io_executor executor, server_config config,
                                                 client_limits limits) {
  return std::make_shared<http_transport>(std::move(executor), std::move(config), limits);
}

}  // namespace harness::mcp
