#include "engine_connection.hpp"

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/basic_stream.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include "harness/docker/errors.hpp"

namespace harness::docker::detail {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using boost::system::error_code;
constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

using unix_stream = beast::basic_stream<asio::local::stream_protocol>;
using tls_stream = asio::ssl::stream<beast::tcp_stream>;

error io_error(const char* what, const error_code& ec) {
  if (ec == beast::error::timeout) {
    return make_error(docker::errc::timeout, fmt::format("the Docker engine did not answer in time ({})", what),
                      "the engine may be overloaded; check `docker info`");
  }
  return make_error(docker::errc::unreachable,
                    fmt::format("connection to the Docker engine failed while {}: {}", what, ec.message()));
}

bool is_end_of_stream(const error_code& ec) {
  return ec == asio::error::eof || ec == asio::ssl::error::stream_truncated || ec == beast::http::error::end_of_stream;
}

template <class Stream>
class connection_impl final : public connection {
 public:
  template <class... Args>
  explicit connection_impl(std::shared_ptr<asio::ssl::context> tls, Args&&... args)
      : tls_(std::move(tls)), stream_(std::forward<Args>(args)...) {}

  Stream& stream() { return stream_; }
  auto& lowest() { return beast::get_lowest_layer(stream_); }

  asio::awaitable<result<response>> round_trip(request& req, std::chrono::milliseconds timeout,
                                               std::size_t body_limit) override {
    lowest().expires_after(timeout);
    auto [wec, written] = co_await http::async_write(stream_, req, use_tuple);
    if (wec) co_return io_error("sending a request", wec);
    http::response_parser<http::string_body> parser;
    parser.body_limit(body_limit);
    auto [rec, read] = co_await http::async_read(stream_, buffer_, parser, use_tuple);
    if (rec == http::error::body_limit) {
      co_return make_error(docker::errc::protocol_error,
                           fmt::format("the Docker engine's answer to {} is larger than {} bytes",
                                       std::string(req.target()), body_limit));
    }
    if (rec) co_return io_error("reading an answer", rec);
    lowest().expires_never();
    co_return parser.release();
  }

  asio::awaitable<result<response>> upgrade(request& req, std::chrono::milliseconds timeout) override {
    lowest().expires_after(timeout);
    auto [wec, written] = co_await http::async_write(stream_, req, use_tuple);
    if (wec) co_return io_error("sending an attach request", wec);
    http::response_parser<http::string_body> parser;
    parser.body_limit(1 << 20);
    auto [hec, header_bytes] = co_await http::async_read_header(stream_, buffer_, parser, use_tuple);
    if (hec) co_return io_error("reading the attach answer", hec);
    auto code = parser.get().result_int();
    if (code != 101 && code != 200) {
      auto [bec, body_bytes] = co_await http::async_read(stream_, buffer_, parser, use_tuple);
      if (bec && !is_end_of_stream(bec)) co_return io_error("reading the attach answer", bec);
    }
    lowest().expires_never();
    co_return parser.release();
  }

  std::string take_leftover() override {
    std::string out(static_cast<const char*>(buffer_.data().data()), buffer_.size());
    buffer_.consume(buffer_.size());
    return out;
  }

  asio::awaitable<result<std::size_t>> read_some(char* data, std::size_t size,
                                                 std::chrono::milliseconds timeout) override {
    lowest().expires_after(timeout);
    auto [ec, n] = co_await stream_.async_read_some(asio::buffer(data, size), use_tuple);
    if (is_end_of_stream(ec)) co_return std::size_t{0};
    if (ec) co_return io_error("reading container output", ec);
    co_return n;
  }

  asio::awaitable<status> write_all(const char* data, std::size_t size, std::chrono::milliseconds timeout) override {
    lowest().expires_after(timeout);
    auto [ec, n] = co_await asio::async_write(stream_, asio::buffer(data, size), use_tuple);
    if (ec) co_return io_error("writing to container stdin", ec);
    co_return status{};
  }

  status shutdown_send() override {
    error_code ec;
    if constexpr (std::is_same_v<Stream, tls_stream>) {
      // TLS half-close, as the Docker CLI does it: send close_notify and keep
      // reading. Asio has no call for "send close_notify only", so the alert is
      // written into a memory BIO and sent on the socket by hand (no write can
      // be pending: one writer at a time, and close_stdin is that writer).
      SSL* ssl = stream_.native_handle();
      BIO* original = SSL_get_wbio(ssl);
      BIO* memory = BIO_new(BIO_s_mem());
      if (!memory || !BIO_up_ref(original)) return io_error("closing stdin", asio::error::no_memory);
      SSL_set0_wbio(ssl, memory);
      SSL_shutdown(ssl);
      char* data = nullptr;
      long size = BIO_get_mem_data(memory, &data);
      std::string alert(data, size > 0 ? static_cast<std::size_t>(size) : 0);
      SSL_set0_wbio(ssl, original);  // frees the memory BIO
      asio::write(lowest().socket(), asio::buffer(alert), ec);
      if (ec) return io_error("closing stdin", ec);
      return {};
    } else {
      lowest().socket().shutdown(asio::socket_base::shutdown_send, ec);
      if (ec) return io_error("closing stdin", ec);
      return {};
    }
  }

  void close() override { lowest().close(); }

 private:
  std::shared_ptr<asio::ssl::context> tls_;  // outlives stream_ (declared first)
  Stream stream_;
  beast::flat_buffer buffer_;
};

error unreachable(const engine_endpoint& endpoint, const std::string& why) {
  std::string hint = endpoint.kind == engine_endpoint::transport::unix_socket
                         ? "start the engine (./scripts/run.sh does it) or point DOCKER_HOST at a running one"
                         : "check that the engine listens there and that DOCKER_HOST is right";
  return make_error(docker::errc::unreachable,
                    fmt::format("cannot reach the Docker engine at {}: {}", endpoint.describe(), why), hint);
}

result<std::shared_ptr<asio::ssl::context>> make_tls_context(const engine_endpoint& endpoint) {
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  error_code ec;
  ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                   asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1);
  if (!endpoint.ca_file.empty()) ctx->load_verify_file(endpoint.ca_file, ec);
  if (!ec && !endpoint.cert_file.empty()) ctx->use_certificate_chain_file(endpoint.cert_file, ec);
  if (!ec && !endpoint.key_file.empty()) ctx->use_private_key_file(endpoint.key_file, asio::ssl::context::pem, ec);
  if (ec) return unreachable(endpoint, "cannot load the TLS files: " + ec.message());
  ctx->set_verify_mode(endpoint.verify_peer ? asio::ssl::verify_peer : asio::ssl::verify_none);
  return ctx;
}

}  // namespace

asio::awaitable<result<std::unique_ptr<connection>>> connect(asio::any_io_executor executor,
                                                             const engine_endpoint& endpoint,
                                                             std::chrono::milliseconds timeout) {
  if (endpoint.kind == engine_endpoint::transport::unix_socket) {
    auto conn = std::make_unique<connection_impl<unix_stream>>(nullptr, executor);
    conn->stream().expires_after(timeout);
    auto [ec] =
        co_await conn->stream().async_connect(asio::local::stream_protocol::endpoint(endpoint.socket_path), use_tuple);
    if (ec) co_return unreachable(endpoint, ec.message());
    co_return std::unique_ptr<connection>(std::move(conn));
  }

  asio::ip::tcp::resolver resolver(executor);
  auto [rec, results] = co_await resolver.async_resolve(endpoint.host, std::to_string(endpoint.port), use_tuple);
  if (rec) co_return unreachable(endpoint, "cannot resolve the host: " + rec.message());

  if (!endpoint.tls) {
    auto conn = std::make_unique<connection_impl<beast::tcp_stream>>(nullptr, executor);
    conn->stream().expires_after(timeout);
    auto [ec, ep] = co_await conn->stream().async_connect(results, use_tuple);
    if (ec) co_return unreachable(endpoint, ec.message());
    conn->stream().socket().set_option(asio::ip::tcp::no_delay(true));
    co_return std::unique_ptr<connection>(std::move(conn));
  }

  auto ctx = make_tls_context(endpoint);
  if (!ctx) co_return ctx.error();
  auto conn = std::make_unique<connection_impl<tls_stream>>(*ctx, executor, **ctx);
  auto& lowest = beast::get_lowest_layer(conn->stream());
  lowest.expires_after(timeout);
  auto [ec, ep] = co_await lowest.async_connect(results, use_tuple);
  if (ec) co_return unreachable(endpoint, ec.message());
  if (endpoint.verify_peer) {
    conn->stream().set_verify_callback(asio::ssl::host_name_verification(endpoint.host));
  }
  SSL_set_tlsext_host_name(conn->stream().native_handle(), endpoint.host.c_str());
  auto [hec] = co_await conn->stream().async_handshake(asio::ssl::stream_base::client, use_tuple);
  if (hec) co_return unreachable(endpoint, "TLS handshake failed: " + hec.message());
  co_return std::unique_ptr<connection>(std::move(conn));
}

}  // namespace harness::docker::detail
