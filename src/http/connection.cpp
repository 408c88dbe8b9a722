#include "connection.hpp"

#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <functional>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

#include <spdlog/spdlog.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "beast_message.hpp"
#include "dispatch.hpp"
#include "harness/core/ids.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/http/api.hpp"
#include "harness/http/errors.hpp"
#include "io_deadline.hpp"
#include "request_span.hpp"
#include "response_head.hpp"
#include "transfer_coding.hpp"

namespace harness::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

// After an error response the client may still be sending a body we refused;
// closing with unread data makes the kernel send RST, which can destroy our
// response before the client reads it. So: stop sending, read and discard for
// a short while, then close.
constexpr std::size_t linger_max_bytes = 8 * 1024 * 1024;
constexpr auto linger_time = std::chrono::milliseconds(1000);

// Every Transfer-Encoding line, in order: a second line continues the list.
std::vector<std::string_view> transfer_encodings(const beast_request& header) {
  std::vector<std::string_view> values;
  auto [first, last] = header.equal_range(bhttp::field::transfer_encoding);
  for (auto it = first; it != last; ++it) values.push_back(it->value());
  return values;
}

// A request's watch on its client (client_watch): `gone` until the request
// is answered, then null.
struct watch_state {
  std::function<void()> gone;
};

// Waits until the client's side of the connection becomes readable: a
// closed or reset connection reads as the end (or an error), and then the
// client is gone. Bytes to read are the client's next request, sent ahead
// (pipelining), which is no leaving, so the watch ends without a word. A
// client that only shuts down its sending side counts as gone too: nothing
// tells that from a close. The socket is only touched while the request is
// in hand (`gone` set), when the connection still owns it.
asio::awaitable<void> wait_for_leaving(tcp::socket& socket, std::shared_ptr<watch_state> state) {
  auto [ec] = co_await socket.async_wait(tcp::socket::wait_read, use_tuple);
  if (!state->gone || ec == asio::error::operation_aborted) co_return;
  if (!ec) {
    char byte = 0;
    const auto n = ::recv(socket.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))) co_return;
  }
  auto gone = std::exchange(state->gone, nullptr);
  gone();
}

class connection final : public client_watch {
 public:
  connection(tcp::socket& socket, const server_config& config, const router& routes, services& svc,
             connection_registry& registry)
      : socket_(socket),
        config_(config),
        routes_(routes),
        svc_(svc),
        registry_(registry),
        deadline_(socket, svc.clock) {
    if (svc_.metrics) metrics_.emplace(*svc_.metrics);
  }

  asio::awaitable<void> run() {
    auto entry = registry_.add(socket_);
    // One request per turn. The turn is written out here rather than in a
    // coroutine of its own: this frame is made once per connection, where a
    // coroutine per request had its frame (about 2 KB, past what Asio and
    // malloc keep at hand) allocated and freed for every request.
    while (!registry_.stopping()) {
      entry->busy = false;
      if (buffer_.size() == 0) {
        // Idle keep-alive wait for the first bytes of the next request.
        deadline_.arm(config_.keepalive_timeout);
        auto [ec, n] = co_await socket_.async_read_some(buffer_.prepare(4096), use_tuple);
        deadline_.disarm();
        if (ec) break;
        buffer_.commit(n);
      }
      entry->busy = true;
      auto started = svc_.clock.steady_now();
      info_ = {};
      trace_id_.clear();
      auto& parser = parser_.emplace();
      parser.header_limit(static_cast<std::uint32_t>(config_.header_limit));
      parser.body_limit(config_.body_limit);
      if (!parse_buffered(parser) && !co_await read_request(parser, started)) break;

      auto raw = parser.release();
      unsigned version = raw.version();
      bool keep_alive = raw.keep_alive();
      bool head_only = raw.method() == bhttp::verb::head;
      auto target = parse_target(raw.target());
      if (!target) {
        auto refusal = error_response(target.error().code, target.error().message);
        co_await refuse(std::move(refusal), raw, started);
        break;
      }
      http_request request = to_request(std::move(raw), *target);
      request.client = this;
      auto span = start_request_span(svc_.tracer, request);
      trace_id_ = span.context().trace_id;
      auto answer = dispatch_now(routes_, svc_, request, &info_);
      if (!answer) answer = co_await dispatch(routes_, svc_, request, &info_);
      unwatch();
      finish_request_span(span, request, info_.route, *answer);
      keep_alive = keep_alive && !registry_.stopping();
      bool sent = false;
      if (answer->stream && !head_only) {
        sent = co_await send_stream(std::move(*answer), version, keep_alive, started, request.method, request.path,
                                    request.request_id);
      } else {
        // Written here too, not in a coroutine of its own: see above.
        auto [ec, bytes] = co_await write_answer(*answer, version, keep_alive, head_only);
        written(answer->status, bytes, started, request.method, request.path, request.request_id);
        sent = !ec;
      }
      if (!sent || !keep_alive) break;
    }
    boost::system::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    registry_.remove(entry);
  }

 private:
  using request_parser = bhttp::request_parser<bhttp::string_body>;

  // client_watch: armed only for a handler that asks, so other requests
  // cost no extra wait on the socket.
  void watch(std::function<void()> gone) override {
    if (watch_ || !gone) return;
    watch_ = std::make_shared<watch_state>();
    watch_->gone = std::move(gone);
    auto waiting = wait_for_leaving(socket_, watch_);  // a local: GCC 12 and temporaries in co_spawn
    core::spawn_logged(socket_.get_executor(), std::move(waiting), "http: watching a client");
  }

  // The request is answered: its watch ends (the wait is the only operation
  // on the socket then, so cancel() stops just that).
  void unwatch() {
    if (!watch_) return;
    watch_->gone = nullptr;
    boost::system::error_code ignored;
    socket_.cancel(ignored);
    watch_.reset();
  }

  // Parses what the buffer already holds. Nearly every request arrives whole
  // with its first bytes: a request without a body whose header is all there
  // is read here, without an asynchronous read (which costs a trip through
  // the scheduler even when the bytes are at hand). False when read_request()
  // must finish the job: more to read, a body, a Transfer-Encoding to check,
  // or bytes that are not HTTP (the parser keeps the error for it).
  bool parse_buffered(request_parser& parser) {
    boost::system::error_code ec;
    buffer_.consume(parser.put(buffer_.data(), ec));
    if (ec == bhttp::error::need_more) return false;
    if (ec) {
      buffered_error_ = ec;
      return false;
    }
    return parser.is_done() && parser.get().count(bhttp::field::transfer_encoding) == 0;
  }

  // Reads the rest of the request parse_buffered() began, within
  // request_timeout. False when the request was refused (or the client went
  // away): the connection then closes.
  asio::awaitable<bool> read_request(request_parser& parser, core::steady_time started) {
    boost::system::error_code ec = std::exchange(buffered_error_, {});
    std::size_t unused = 0;
    deadline_.arm(config_.request_timeout);
    if (!ec && !parser.is_header_done()) {
      std::tie(ec, unused) = co_await bhttp::async_read_header(socket_, buffer_, parser, use_tuple);
    }
    if (!ec) {
      if (auto refused = check_transfer_encoding(transfer_encodings(parser.get()), parser.get().version())) {
        deadline_.disarm();
        co_await refuse(std::move(*refused), parser.get(), started);
        co_return false;
      }
      auto length = parser.content_length();
      if (length && *length > config_.body_limit) {
        ec = bhttp::error::body_limit;  // refuse from Content-Length, before reading the body
      } else if (!parser.is_done()) {
        auto expect = parser.get()[bhttp::field::expect];
        if (iequals(expect, "100-continue")) co_await send_continue(parser.get().version());
        std::tie(ec, unused) = co_await bhttp::async_read(socket_, buffer_, parser, use_tuple);
      }
    }
    bool timed_out = deadline_.expired();
    deadline_.disarm();
    if (ec || timed_out) {
      auto failure = read_failure_response(ec, timed_out, config_);
      if (failure) co_await refuse(std::move(*failure), parser.get(), started);
      co_return false;
    }
    co_return true;
  }

  // Answers a request that will not be served; the caller then closes, as
  // its framing cannot be trusted to find where the next request starts. The
  // access log names the request when its request line arrived.
  asio::awaitable<void> refuse(http_response response, const beast_request& partial, core::steady_time started) {
    response.set_header("X-Request-Id", core::make_id("req_"));
    std::string method = partial.method_string().empty() ? "-" : std::string(partial.method_string());
    std::string target = partial.target().empty() ? "-" : std::string(partial.target());
    co_await send_and_close(std::move(response), started, method, target);
  }

  // The access log's key field: the admitted key's id, "-" without one (the
  // server runs open, or the request was refused before a key was known).
  std::string_view key_label() const { return info_.key_id.empty() ? std::string_view("-") : info_.key_id; }
  // The request's trace in its access log line, to find the trace from the log.
  std::string trace_label() const { return trace_id_.empty() ? std::string() : " trace=" + trace_id_; }

  asio::awaitable<void> send_continue(unsigned version) {
    bhttp::response<bhttp::empty_body> cont{bhttp::status::continue_, version};
    co_await bhttp::async_write(socket_, cont, use_tuple);
  }

  // The write of an answer (its header block, then its body unless
  // `head_only`) in one gathered write, within the request deadline, for the
  // caller to co_await; written() follows. Not a coroutine of its own (see
  // run()); `response` must outlive the write.
  asio::awaitable<std::tuple<boost::system::error_code, std::size_t>> write_answer(const http_response& response,
                                                                                   unsigned version, bool keep_alive,
                                                                                   bool head_only) {
    write_response_head(head_, response, version, keep_alive);
    bool with_body = !head_only && status_has_body(response.status);
    std::array<asio::const_buffer, 2> buffers{asio::buffer(head_),
                                              with_body ? asio::buffer(response.body) : asio::const_buffer()};
    deadline_.arm(config_.request_timeout);
    return asio::async_write(socket_, buffers, use_tuple);
  }

  // After write_answer(): the metrics and the access log.
  void written(unsigned status, std::size_t bytes, core::steady_time started, const std::string& method,
               const std::string& path, const std::string& request_id) {
    deadline_.disarm();
    auto ms = std::chrono::duration<double, std::milli>(svc_.clock.steady_now() - started).count();
    if (metrics_) metrics_->record(method, info_.route, status, ms / 1000);
    // A healthy probe is logged at debug: probes come every few seconds from
    // each orchestrator and load balancer and would drown the access log.
    const auto& route = info_.route;
    bool probe = route == "/health" || route == "/health/live" || route == "/health/ready";
    auto level = status == 200 && probe ? spdlog::level::debug : spdlog::level::info;
    // log_for checks the level before it formats: a probe logged at debug
    // costs no format and no allocation when debug is off.
    core::log_for(level, request_id, "{} {} {} {}B {:.1f}ms key={}{}", method, path, status, bytes, ms, key_label(),
                  trace_label());
  }

  // A streamed body: the header, then one chunk per piece as the stream
  // yields it. Each write has the request deadline, so a client that stops
  // reading is dropped instead of holding the stream forever.
  asio::awaitable<bool> send_stream(http_response response, unsigned version, bool keep_alive,
                                    core::steady_time started, const std::string& method, const std::string& path,
                                    const std::string& request_id) {
    bhttp::response<bhttp::empty_body> head{static_cast<bhttp::status>(response.status), version};
    for (auto& [name, value] : response.headers) head.insert(name, value);
    head.keep_alive(keep_alive);
    head.chunked(true);
    bhttp::response_serializer<bhttp::empty_body> serializer{head};
    deadline_.arm(config_.request_timeout);
    auto [ec, bytes] = co_await bhttp::async_write_header(socket_, serializer, use_tuple);
    deadline_.disarm();
    std::size_t total = bytes;
    while (!ec) {
      auto piece = co_await response.stream->next();
      if (!piece || registry_.stopping()) break;
      if (piece->empty()) continue;
      deadline_.arm(config_.request_timeout);
      std::tie(ec, bytes) = co_await asio::async_write(socket_, bhttp::make_chunk(asio::buffer(*piece)), use_tuple);
      deadline_.disarm();
      total += bytes;
    }
    if (!ec) {
      std::tie(ec, bytes) = co_await asio::async_write(socket_, bhttp::make_chunk_last(), use_tuple);
      total += bytes;
    }
    auto ms = std::chrono::duration<double, std::milli>(svc_.clock.steady_now() - started).count();
    core::log_for(spdlog::level::info, request_id, "{} {} {} {}B {:.1f}ms key={}{} (stream)", method, path,
                  response.status, total, ms, key_label(), trace_label());
    co_return !ec;
  }

  asio::awaitable<void> send_and_close(http_response response, core::steady_time started, const std::string& method,
                                       const std::string& path) {
    std::string request_id(response.header("X-Request-Id").value_or(""));
    auto [write_ec, bytes] = co_await write_answer(response, 11, false, false);
    written(response.status, bytes, started, method, path, request_id);
    if (write_ec) co_return;
    boost::system::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    deadline_.arm(linger_time);
    std::size_t drained = 0;
    while (drained < linger_max_bytes) {
      auto [ec, n] = co_await socket_.async_read_some(buffer_.prepare(16384), use_tuple);
      if (ec) break;
      drained += n;
      buffer_.consume(buffer_.size());
    }
    deadline_.disarm();
  }

  tcp::socket& socket_;
  const server_config& config_;
  const router& routes_;
  services& svc_;
  connection_registry& registry_;
  io_deadline deadline_;
  beast::flat_buffer buffer_;
  std::optional<request_metrics> metrics_;
  dispatch_info info_;    // route pattern (points into routes_) and key id of the current request
  std::string trace_id_;  // of the current request's trace; empty without one
  // The current request's parser: Beast's parsers serve one message each, so
  // a new one is made for every request.
  std::optional<request_parser> parser_;
  boost::system::error_code buffered_error_;  // what parse_buffered() found wrong, for read_request()
  std::string head_;                          // the header block of the answer being written
  std::shared_ptr<watch_state> watch_;        // the current request's watch on its client, if it asked
};

}  // namespace

asio::awaitable<void> serve_connection(tcp::socket socket, const server_config& config, const router& routes,
                                       services& svc, connection_registry& registry) {
  connection conn(socket, config, routes, svc, registry);
  co_await conn.run();
}

}  // namespace harness::http
