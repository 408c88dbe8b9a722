// The baseline of the GET /health benchmark: the smallest server built the
// way ours is (Boost.Beast on Asio, C++20 coroutines, one I/O thread, one
// coroutine per connection, keep-alive, a fresh parser per request with
// header and body limits) that answers every request with a fixed small JSON
// body. What mcp-harness adds on top (routing, the health document, request
// ids, the access log, metrics) is the gap between the two.
//   beast_hello PORT
#include <cstdio>
#include <cstdlib>
#include <string>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

asio::awaitable<void> serve(tcp::socket socket) {
  beast::flat_buffer buffer;
  for (;;) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(16 * 1024);
    parser.body_limit(1024 * 1024);
    auto [ec, n] = co_await http::async_read(socket, buffer, parser, use_tuple);
    if (ec) break;
    auto& request = parser.get();
    http::response<http::string_body> response{http::status::ok, request.version()};
    response.set(http::field::content_type, "application/json");
    response.set(http::field::cache_control, "no-store");
    response.keep_alive(request.keep_alive());
    response.body() = R"({"status":"ok"})";
    response.prepare_payload();
    auto [write_ec, written] = co_await http::async_write(socket, response, use_tuple);
    if (write_ec || !response.keep_alive()) break;
  }
  boost::system::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_both, ignored);
}

asio::awaitable<void> listen(tcp::acceptor acceptor) {
  for (;;) {
    auto [ec, socket] = co_await acceptor.async_accept(use_tuple);
    if (ec) continue;
    asio::co_spawn(acceptor.get_executor(), serve(std::move(socket)), asio::detached);
  }
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: beast_hello PORT\n");
    return 2;
  }
  asio::io_context io(1);
  tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(std::atoi(argv[1]))});
  std::printf("listening on http://127.0.0.1:%u\n", acceptor.local_endpoint().port());
  std::fflush(stdout);
  asio::co_spawn(io, listen(std::move(acceptor)), asio::detached);
  io.run();
}
