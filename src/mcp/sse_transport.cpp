// The HTTP+SSE transport of MCP 2024-11-05, for servers older than Streamable
// HTTP: a GET opens one event stream for the whole session; its first event,
// `endpoint`, names where to POST messages; every message of the server
// (answers included) then arrives as a `message` event on that stream. A POST
// is only acknowledged (202). Selected by "type": "sse" in an mcpServers entry.
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/core/async_event.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/core/with_deadline.hpp"
#include "harness/mcp/errors.hpp"
#include "harness/mcp/transport.hpp"
#include "harness/net/http_client.hpp"
#include "harness/net/url.hpp"
#include "message_errors.hpp"
#include "sse_parser.hpp"

namespace harness::mcp {
namespace asio = boost::asio;
using nlohmann::json;

namespace {

class sse_transport final : public transport, public std::enable_shared_from_this<sse_transport> {
 public:
  sse_transport(asio::any_io_executor executor, core::clock& clock, server_config config, client_limits limits,
                std::shared_ptr<net::http_client> http)
      : executor_(executor),
        clock_(clock),
        config_(std::move(config)),
        limits_(limits),
        http_(std::move(http)),
        endpoint_(executor) {}

  asio::awaitable<status> open(transport_handlers handlers) override {
    handlers_ = std::move(handlers);
    auto self = shared_from_this();
    net::request get = request("GET");
    get.headers.emplace_back("Accept", "text/event-stream");
    get.timeout = limits_.startup_timeout;
    auto opened = co_await http_->open(std::move(get));
    if (!opened) co_return lost("GET " + net::printable_url(config_.url) + ": " + opened.error().message);
    stream_ = std::move(*opened);
    const auto& head = stream_->head();
    const std::string type = head.header("content-type").value_or("");
    if (head.status != 200 || type.rfind("text/event-stream", 0) != 0) {
      co_return make_error(mcp::errc::http_status,
                           "GET " + net::printable_url(config_.url) + " answered HTTP " + std::to_string(head.status) +
                               " (" + (type.empty() ? "no content type" : type) + "), not an event stream",
                           "\"type\": \"sse\" is for servers of the HTTP+SSE transport (MCP 2024-11-05); for a "
                           "Streamable HTTP server, leave the type out");
    }
    core::spawn_logged(executor_, read_stream(self), "mcp " + config_.name + ": SSE stream");
    // The endpoint event comes first; a server that sends none is no HTTP+SSE server.
    auto endpoint_event = endpoint_.wait();
    auto waited = co_await core::with_deadline(clock_, std::move(endpoint_event), limits_.startup_timeout);
    if (!waited || endpoint_url_.empty()) {
      co_return make_error(mcp::errc::bad_response,
                           "the event stream of " + net::printable_url(config_.url) + " sent no usable endpoint event" +
                               (problem_.empty() ? "" : " (" + problem_ + ")"),
                           "check that the URL is the server's SSE endpoint (often /sse)");
    }
    co_return status{};
  }

  asio::awaitable<status> send(json message) override {
    auto self = shared_from_this();
    if (closing_) co_return make_error(mcp::errc::connection_lost, "the transport is closed");
    net::request post = request("POST");
    post.url = endpoint_url_;
    post.headers.emplace_back("Content-Type", "application/json");
    post.body = message.dump(-1, ' ', false, json::error_handler_t::replace);
    post.timeout = limits_.request_timeout;
    auto answer = co_await http_->fetch(std::move(post));
    if (!answer) co_return lost("POST " + net::printable_url(endpoint_url_) + ": " + answer.error().message);
    if (answer->status < 200 || answer->status >= 300) {
      co_return make_error(mcp::errc::http_status, "POST " + net::printable_url(endpoint_url_) + " answered HTTP " +
                                                       std::to_string(answer->status) + ": " +
                                                       detail::printable(answer->body, 300));
    }
    co_return status{};  // the answer, if any, comes on the event stream
  }

  void set_protocol_version(const std::string&) override {}  // 2024-11-05 has no such header
  void on_initialized() override {}
  void reset_session() override {}

  asio::awaitable<void> close() override {
    closing_ = true;
    if (stream_) stream_->cancel();
    co_return;
  }

  std::string describe() const override { return "sse:" + net::printable_url(config_.url); }
  int pid() const override { return 0; }

 private:
  net::request request(const char* method) const {
    net::request r;
    r.method = method;
    r.url = config_.url;
    for (const auto& [name, value] : config_.headers) r.headers.emplace_back(name, value);
    return r;
  }

  error lost(std::string what) const {
    return make_error(mcp::errc::connection_lost, std::move(what), "check that the MCP server is running at that URL");
  }

  // The endpoint a server names must be on its own origin: a POST elsewhere
  // would carry the configured headers (credentials) to another host.
  void take_endpoint(const std::string& data) {
    auto resolved = net::resolve_url(config_.url, data);
    auto base = net::parse_url(config_.url);
    auto target = resolved ? net::parse_url(*resolved) : decltype(base)(resolved.error());
    if (!resolved || !base || !target || net::origin_of(*target) != net::origin_of(*base)) {
      problem_ = "the endpoint '" + detail::printable(data, 120) + "' is not on the server's own origin";
    } else {
      endpoint_url_ = *resolved;
    }
    endpoint_.set();
  }

  void on_event(const sse_event& event) {
    if (event.event == "endpoint") {
      if (endpoint_url_.empty()) take_endpoint(event.data);
      return;
    }
    if (event.event != "message" || event.data.empty()) return;
    auto message = detail::parse_message(event.data);
    if (!message) {
      handlers_.on_undeliverable(
          {detail::message_not_json(config_.name, event.data, message.error().message), identify_message(event.data)});
      return;
    }
    handlers_.on_message(std::move(*message));
  }

  static asio::awaitable<void> read_stream(std::shared_ptr<sse_transport> self) {
    sse_parser parser(
        self->limits_.max_message_bytes, [&](const sse_event& event) { self->on_event(event); },
        [&](const message_identity& identity) {
          self->handlers_.on_undeliverable(
              {detail::message_too_large(self->config_.name, identity.bytes, self->limits_.max_message_bytes, true),
               identity});
        });
    std::string why = "the server ended its event stream";
    while (!self->closing_) {
      auto piece = co_await self->stream_->read();
      if (!piece) {
        why = "the event stream broke: " + piece.error().message;
        break;
      }
      if (piece->empty()) break;
      parser.feed(*piece);
    }
    self->endpoint_.set();  // open() waits no longer
    if (self->closing_ || !self->handlers_.on_closed) co_return;
    self->closing_ = true;
    self->handlers_.on_closed(self->lost(why + " (" + net::printable_url(self->config_.url) + ")"));
  }

  asio::any_io_executor executor_;
  core::clock& clock_;
  server_config config_;
  client_limits limits_;
  std::shared_ptr<net::http_client> http_;
  transport_handlers handlers_;
  std::unique_ptr<net::response_stream> stream_;
  core::async_event endpoint_;  // set by the endpoint event, or when the stream ends first
  std::string endpoint_url_;
  std::string problem_;  // why the endpoint event was not usable
  bool closing_ = false;
};

}  // namespace

std::shared_ptr<transport> create_sse_transport(asio::any_io_executor executor, core::clock& clock,
                                                server_config config, client_limits limits,
                                                std::shared_ptr<net::http_client> http) {
  return std::make_shared<sse_transport>(std::move(executor), clock, std::move(config), limits, std::move(http));
}

}  // namespace harness::mcp
