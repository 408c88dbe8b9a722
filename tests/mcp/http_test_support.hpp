// Helpers for the Streamable HTTP tests: a free loopback port, a node server
// spawned for the test, and a client connected to it once it listens.
#pragma once

#include <signal.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "child_process.hpp"
#include "client.hpp"
#include "harness/core/health.hpp"
#include "harness/mcp/errors.hpp"
#include "harness/net/http_client.hpp"
#include "mcp_test_support.hpp"
#include "support/stopped_curl_loop.hpp"

namespace harness::mcp::testing {

// A free loopback port for the HTTP server.
inline unsigned short free_port(boost::asio::io_context& ctx) {
  boost::asio::ip::tcp::acceptor acceptor(ctx, {boost::asio::ip::make_address("127.0.0.1"), 0});
  return acceptor.local_endpoint().port();
}

inline server_config http_config(unsigned short port) {
  server_config config;
  config.name = "remote";
  config.kind = transport_kind::http;
  config.url = "http://127.0.0.1:" + std::to_string(port) + "/mcp";
  return config;
}

// Spawns node with args (the server for the test); the caller waits for it to listen.
inline std::unique_ptr<detail::child_process> spawn_node(boost::asio::io_context& ctx, std::vector<std::string> args,
                                                         const std::map<std::string, std::string>& env = {}) {
  detail::spawn_request request;
  request.command = "node";
  request.args = std::move(args);
  request.env = detail::minimal_environment();
  for (const auto& [k, v] : env) request.env[k] = v;
  auto child = detail::child_process::spawn(ctx.get_executor(), request);
  return child ? std::move(*child) : nullptr;
}

inline void sleep_for(boost::asio::io_context& ctx, std::chrono::milliseconds duration) {
  run(ctx, [&]() -> boost::asio::awaitable<void> {
    boost::asio::steady_timer t(ctx, duration);
    co_await t.async_wait(boost::asio::use_awaitable);
  }());
}

// Polls (bounded: 30 s) until the health source says `up`.
inline bool wait_health(boost::asio::io_context& ctx, const core::health_source& health, bool up) {
  for (int i = 0; i < 300 && health.check().up != up; ++i) sleep_for(ctx, std::chrono::milliseconds(100));
  return health.check().up == up;
}

// Starts `node args...` and connects an HTTP client to it; the server needs a
// moment to listen, so the handshake is retried for up to 20 s.
struct http_server_fixture {
  boost::asio::io_context& ctx;
  std::unique_ptr<detail::child_process> child;
  harness::testing::stopped_curl_loop curl;  // stopped before ctx goes
  std::shared_ptr<net::http_client> http = net::create_http_client(curl.loop);
  std::shared_ptr<client> c;
  result<server_info> info = make_error(harness::core::errc::internal_error, "");

  http_server_fixture(boost::asio::io_context& io, std::vector<std::string> args,
                      std::map<std::string, std::string> env, server_config config,
                      client_limits limits = test_limits())
      : ctx(io), child(spawn_node(io, std::move(args), env)) {
    if (!child) {
      info = make_error(harness::mcp::errc::spawn_failed, "cannot start node");
      return;
    }
    for (int i = 0; i < 100 && !info; ++i) {
      remote_access remote;
      remote.http = http;
      c = create_client(ctx.get_executor(), core::real_clock(),
                        create_transport(ctx.get_executor(), core::real_clock(), config, limits, remote), limits);
      info = run(ctx, c->connect());
      if (!info) {
        run(ctx, c->close());
        sleep_for(ctx, std::chrono::milliseconds(200));
      }
    }
  }
  ~http_server_fixture() {
    if (c) run(ctx, c->close());
    if (child) {
      child->signal(SIGTERM);
      run(ctx, child->wait_exit(core::real_clock(), std::chrono::seconds(5)));
    }
  }
};

}  // namespace harness::mcp::testing
