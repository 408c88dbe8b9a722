#include "harness/http/server.hpp"

#include <list>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "connection.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/http/errors.hpp"

namespace harness::http {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

class server_impl final : public http_server, public connection_registry {
 public:
  server_impl(asio::io_context& io, server_config config, const router& routes, services& svc)
      : io_(io),
        config_(std::move(config)),
        routes_(routes),
        svc_(svc),
        acceptor_(io),
        grace_timer_(svc.clock.make_timer(io.get_executor())) {}

  result<unsigned short> start() override {
    boost::system::error_code ec;
    auto address = asio::ip::make_address(config_.host, ec);
    if (ec) return make_error(core::errc::invalid_setting, "invalid HOST: '" + config_.host + "' is not an IP address");
    tcp::endpoint endpoint(address, config_.port);
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      return make_error(http::errc::bind_failed,
                        "cannot listen on " + config_.host + ":" + std::to_string(config_.port) + ": " + ec.message(),
                        "choose another PORT or stop the process that holds it");
    }
    accepting_ = true;
    core::spawn_logged(io_.get_executor(), accept_loop(), "http: accept loop");
    return acceptor_.local_endpoint().port();
  }

  void shutdown(std::function<void()> done) override {
    if (stopping_) return;
    stopping_ = true;
    on_drained_ = std::move(done);
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    // Idle connections have nothing to finish; wake them so they close now.
    for (auto& c : connections_) {
      if (!c.busy) c.socket->cancel(ignored);
    }
    grace_timer_->expires_at(svc_.clock.steady_now() + config_.shutdown_grace);
    grace_timer_->async_wait([this](bool expired) {
      if (!expired) return;
      boost::system::error_code ignored_close;
      for (auto& c : connections_) c.socket->close(ignored_close);
    });
    finish_if_drained();
  }

  // connection_registry
  bool stopping() const override { return stopping_; }
  std::list<tracked_connection>::iterator add(tcp::socket& socket) override {
    return connections_.insert(connections_.end(), tracked_connection{&socket, false});
  }
  void remove(std::list<tracked_connection>::iterator it) override {
    connections_.erase(it);
    finish_if_drained();
  }

 private:
  asio::awaitable<void> accept_loop() {
    for (;;) {
      auto [ec, socket] = co_await acceptor_.async_accept(use_tuple);
      if (ec) {
        if (stopping_ || ec == asio::error::operation_aborted) break;
        // Out of descriptors and the like: log, back off briefly, keep serving.
        core::log_warn("accept failed: {}", ec.message());
        auto pause = svc_.clock.make_timer(io_.get_executor());
        pause->expires_at(svc_.clock.steady_now() + std::chrono::milliseconds(50));
        co_await pause->wait();
        continue;
      }
      core::spawn_logged(io_.get_executor(), serve_connection(std::move(socket), config_, routes_, svc_, *this),
                         "http: connection");
    }
    accepting_ = false;
    finish_if_drained();
  }

  void finish_if_drained() {
    if (!stopping_ || accepting_ || !connections_.empty() || !on_drained_) return;
    grace_timer_->cancel();
    auto done = std::move(on_drained_);
    on_drained_ = nullptr;
    asio::post(io_, std::move(done));
  }

  asio::io_context& io_;
  server_config config_;
  const router& routes_;
  services& svc_;
  tcp::acceptor acceptor_;
  std::unique_ptr<core::timer> grace_timer_;
  std::list<tracked_connection> connections_;
  std::function<void()> on_drained_;
  bool stopping_ = false;
  bool accepting_ = false;
};

}  // namespace

std::unique_ptr<http_server> create_http_server(asio::io_context& io, server_config config, const router& routes,
                                                services& svc) {
  return std::make_unique<server_impl>(io, std::move(config), routes, svc);
}

}  // namespace harness::http
