#include "harness/app/app.hpp"

#include <unistd.h>

#include <csignal>
#include <cstdio>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include "app_settings.hpp"
#include "components.hpp"
#include "harness/auth/keys_cli.hpp"
#include "harness/core/ids.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/core/version.hpp"
#include "harness/http/api.hpp"

#include "harness/http/http_settings.hpp"
#include "harness/http/server.hpp"
#include "harness/mcp_server/stdio_server.hpp"
#include "harness/pii/pii_cli.hpp"
#include "harness/secrets/secrets_cli.hpp"

#include <iostream>

namespace harness::app {
namespace {

constexpr const char* usage =
    "usage: mcp-harness [--name value ...]   run the server\n"
    "       mcp-harness pii tokenize [--json]   censor stdin with the configured PII detectors\n"
    "       mcp-harness keys add|list|revoke   manage API keys (mcp-harness keys --help)\n"
    "       mcp-harness secrets set|list|delete --user ID [NAME]   a user's secrets (value on stdin)\n"
    "       mcp-harness mcp [--user NAME] [--name value ...]   serve code mode as a stdio MCP server\n"
    "       mcp-harness --help | --version";

int config_failure(const error& e) {
  std::fprintf(stderr, "mcp-harness: %s\n", e.describe().c_str());
  return 2;
}

result<std::unique_ptr<components>> build_guarded(boost::asio::io_context& io, const core::settings& settings) {
  try {
    return build_components(io, settings);
  } catch (const std::exception& e) {
    // Every expected start-up failure is an error value naming its setting;
    // this is the backstop that keeps an unexpected one to one line too.
    return make_error(core::errc::startup_failed, std::string("start-up failed: ") + e.what());
  }
}

int serve(const core::settings& settings) {
  auto http_config = http::load_http_config(settings);
  if (!http_config) return config_failure(http_config.error());

  // One thread runs `io` (this one; other threads only post to it). Saying
  // so lets Asio queue the completions this thread makes without taking
  // the scheduler's lock, which every request's reads and writes did.
  boost::asio::io_context io(1);
  auto parts = build_guarded(io, settings);
  if (!parts) return config_failure(parts.error());
  http::router routes = http::make_api_router();
  auto server = http::create_http_server(io, http_config->server, routes, (*parts)->services());
  auto port = server->start();
  if (!port) return config_failure(port.error());
  (*parts)->listening_on(*port);
  core::log_info("mcp-harness {} listening on http://{}:{}", core::version(), http_config->server.host, *port);
  (*parts)->announce();

  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](boost::system::error_code ec, int signal) {
    if (ec) return;
    core::log_info("received signal {}: draining (grace {} ms)", signal, http_config->server.shutdown_grace.count());
    // Tasks end first (as "interrupted"), so requests that wait on them answer within the grace.
    core::spawn_logged(io.get_executor(), (*parts)->interrupt_tasks(http_config->server.shutdown_grace / 2),
                       "shutdown: interrupting tasks");
    server->shutdown([&] {
      // No request is in flight any more: end sessions and remove containers.
      boost::asio::co_spawn(io, (*parts)->shutdown(), [&](std::exception_ptr failure) {
        if (failure) core::log_spawn_exception("shutdown", failure);
        core::log_info("shutdown complete");
        io.stop();
      });
    });
  });
  io.run();
  return 0;
}

// `mcp-harness mcp`: the same components as the server, with stdin/stdout as
// the one MCP client instead of the HTTP listener. Returns when stdin ends
// (the client closed it) or on SIGINT/SIGTERM, after removing every container.
int serve_mcp_stdio(const core::settings& settings, std::string user_id) {
  boost::asio::io_context io;
  auto parts = build_guarded(io, settings);
  if (!parts) return config_failure(parts.error());
  auto face = (*parts)->services().mcp;
  core::log_info("mcp-harness {} serving MCP on stdio for user {}", core::version(), user_id);
  bool stopping = false;
  auto stop = [&] {
    if (std::exchange(stopping, true)) return;
    boost::asio::co_spawn(io, (*parts)->shutdown(), [&](std::exception_ptr failure) {
      if (failure) core::log_spawn_exception("shutdown", failure);
      io.stop();
    });
  };
  auto serving = mcp_server::serve_stdio(face, core::real_clock(), std::move(user_id), STDIN_FILENO, STDOUT_FILENO);
  boost::asio::co_spawn(io, std::move(serving), [&](std::exception_ptr failure) {
    if (failure) core::log_spawn_exception("mcp stdio", failure);
    stop();
  });
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](boost::system::error_code ec, int) {
    if (!ec) stop();
  });
  io.run();
  return 0;
}

}  // namespace

int run(int argc, char** argv) {
  // A sandbox or MCP server that dies leaves a broken pipe: that is an error
  // value on the write, never a signal that kills the server.
  std::signal(SIGPIPE, SIG_IGN);
  std::vector<std::string> args(argv + 1, argv + argc);
  auto specs = all_setting_specs();
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::fputs(core::help_text(specs, usage).c_str(), stdout);
    return 0;
  }
  if (!args.empty() && args[0] == "--version") {
    std::printf("mcp-harness %s\n", core::version());
    return 0;
  }
  if (!args.empty() && args[0] == "pii") {
    // The subcommand's own arguments are not settings: the PII settings come
    // from the environment and .env, exactly as the server reads them.
    auto settings = load_settings(specs, {});
    if (!settings) return config_failure(settings.error());
    return pii::run_pii_cli({args.begin() + 1, args.end()}, *settings, std::cin, std::cout, std::cerr);
  }
  if (!args.empty() && args[0] == "keys") {
    auto settings = load_settings(specs, {});
    if (!settings) return config_failure(settings.error());
    return auth::run_keys_cli({args.begin() + 1, args.end()}, *settings, std::cout, std::cerr, core::real_clock());
  }
  if (!args.empty() && args[0] == "secrets") {
    auto settings = load_settings(specs, {});
    if (!settings) return config_failure(settings.error());
    return secrets::run_secrets_cli({args.begin() + 1, args.end()}, *settings, std::cin, std::cout, std::cerr,
                                    core::real_clock());
  }
  if (!args.empty() && args[0] == "mcp") {
    // Logs go to stderr (they always do): stdout carries only the protocol.
    std::string user_id = "local";
    std::vector<std::string> rest;
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (args[i] == "--user" && i + 1 < args.size()) {
        user_id = args[++i];
      } else {
        rest.push_back(args[i]);
      }
    }
    if (!core::is_safe_id(user_id)) {
      return config_failure(make_error(core::errc::invalid_setting, "invalid --user '" + user_id + "'",
                                       "user ids are 1-128 characters of letters, digits, . _ -"));
    }
    auto settings = load_settings(specs, rest);
    if (!settings) return config_failure(settings.error());
    if (!settings->is_set_explicitly("SANDBOX_OWNER")) {
      // Each stdio server owns its containers alone: with the shared default
      // label, a second one (another client, or the HTTP server) would sweep
      // this one's running sandboxes at its start-up.
      rest.push_back("--sandbox-owner");
      rest.push_back(settings->get("SANDBOX_OWNER") + "-stdio-" + std::to_string(::getpid()));
      settings = load_settings(specs, rest);
      if (!settings) return config_failure(settings.error());
    }
    auto log_config = load_log_config(*settings);
    if (!log_config) return config_failure(log_config.error());
    core::init_logging(*log_config);
    return serve_mcp_stdio(*settings, std::move(user_id));
  }
  auto settings = load_settings(specs, args);
  if (!settings) return config_failure(settings.error());
  auto log_config = load_log_config(*settings);
  if (!log_config) return config_failure(log_config.error());
  core::init_logging(*log_config);
  return serve(*settings);
}

}  // namespace harness::app
