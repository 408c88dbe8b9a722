// conformance_client <url>: the MCP client the conformance suite drives
// (`conformance client --command build/tests/conformance/conformance_client`),
// built on the product's own client, transport and OAuth.
//
// It connects over Streamable HTTP, lists the tools, calls add_numbers with
// {a: 5, b: 3} when offered and every tool that needs no arguments, then
// closes the session; exit status 0 when every step worked.
//
// For the auth/* scenarios it is configured as an operator would configure
// the harness for that server (MCP_CONFORMANCE_CONTEXT gives pre-registered
// credentials or a private key; a Client ID Metadata Document URL is set),
// (or, for enterprise-managed authorization, the user's ID token and identity
// provider), and when a step needs a person's authorization it does what the operator's
// browser does: it opens the authorizationUrl that /health would show,
// follows it to the redirect, and hands that redirect's query to the OAuth
// manager exactly as GET /oauth/callback does. Then the step runs again.
#include <cstdlib>
#include <iostream>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include "client.hpp"
#include "harness/core/logging.hpp"
#include "harness/mcp/errors.hpp"
#include "harness/mcp/oauth.hpp"
#include "harness/net/http_client.hpp"
#include "harness/net/url.hpp"
#include "http_authorizer.hpp"

namespace asio = boost::asio;
using nlohmann::json;
using namespace harness;
using namespace harness::mcp;

namespace {

// The operator's Client ID Metadata Document, as configured for the harness
// (the suite's authorization servers accept this URL without fetching it).
constexpr const char* client_metadata_url = "https://conformance-test.local/client-metadata.json";
// Where the browser would come back; the browser below stops at the redirect.
constexpr const char* redirect_uri = "http://127.0.0.1:3000/oauth/callback";
constexpr int max_authorizations_per_step = 3;

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// The mcpServers entry an operator would write for this scenario's server.
server_config configure(const std::string& url) {
  server_config config;
  config.name = "conformance";
  config.kind = transport_kind::http;
  config.url = url;
  config.allow_private_network = true;  // what parse_server gives a server on localhost
  const std::string scenario = env("MCP_CONFORMANCE_SCENARIO");
  const json context =
      json::parse(env("MCP_CONFORMANCE_CONTEXT").empty() ? "{}" : env("MCP_CONFORMANCE_CONTEXT"), nullptr, false);
  if (scenario.rfind("auth/", 0) != 0) return config;
  oauth_config oauth;
  oauth.client_metadata_url = client_metadata_url;
  if (context.is_object()) {
    oauth.client_id = context.value("client_id", "");
    oauth.client_secret = context.value("client_secret", "");
    oauth.private_key_pem = context.value("private_key_pem", "");
    oauth.signing_algorithm = context.value("signing_algorithm", "");
    if (!oauth.private_key_pem.empty()) oauth.token_endpoint_auth_method = "private_key_jwt";
  }
  if (scenario.rfind("auth/client-credentials", 0) == 0) oauth.grant = oauth_config::grant_type::client_credentials;
  if (context.is_object() && context.contains("idp_id_token")) {
    // Enterprise-managed authorization: the user's ID token from the company's identity provider.
    oauth.grant = oauth_config::grant_type::identity_assertion;
    oauth.identity_provider.token_endpoint = context.value("idp_token_endpoint", "");
    oauth.identity_provider.client_id = context.value("idp_client_id", "");
    oauth.identity_provider.id_token = context.value("idp_id_token", "");
  }
  config.oauth = oauth;
  return config;
}

struct harness_side {
  std::shared_ptr<net::http_client> http;
  std::shared_ptr<oauth_manager> oauth;
  std::shared_ptr<http_authorizer> authorizer;
};

// What the operator's browser does with the authorizationUrl: open it, let
// the authorization server redirect, and bring the redirect's query back to
// the harness (GET /oauth/callback).
asio::awaitable<status> authorize_in_browser(harness_side& side) {
  const json state = side.authorizer ? side.authorizer->describe() : json();
  const std::string url = state.value("authorizationUrl", "");
  if (url.empty())
    co_return make_error(mcp::errc::authorization_failed, "no authorizationUrl to open: " + state.dump());
  std::cerr << "browser: opening " << net::printable_url(url) << "\n";
  net::request r;
  r.url = url;
  auto answer = co_await side.http->fetch(r);
  if (!answer) co_return answer.error();
  auto location = answer->header("location");
  if (answer->status < 300 || answer->status >= 400 || !location) {
    co_return make_error(mcp::errc::authorization_failed, "the authorization endpoint answered HTTP " +
                                                              std::to_string(answer->status) + " without a redirect");
  }
  auto target = net::resolve_url(url, *location);
  if (!target) co_return target.error();
  auto parts = net::parse_url(*target);
  if (!parts) co_return parts.error();
  std::map<std::string, std::string> query;
  for (auto& [name, value] : net::form_decode(parts->query)) query[name] = value;
  auto done = co_await side.oauth->complete(query);
  if (!done) co_return done.error();
  std::cerr << "browser: authorized " << done->server << "\n";
  co_return status{};
}

// Runs a step; when it needs a person's authorization, authorizes in the browser and runs it again.
template <class Step>
auto with_authorization(harness_side& side, Step step) -> decltype(step()) {
  for (int attempt = 0;; ++attempt) {
    auto outcome = co_await step();
    if (outcome || outcome.error().code != mcp::errc::needs_authorization || attempt == max_authorizations_per_step) {
      co_return outcome;
    }
    if (auto ok = co_await authorize_in_browser(side); !ok) co_return ok.error();
  }
}

asio::awaitable<int> run_client(std::shared_ptr<client> c, harness_side& side) {
  auto info = co_await with_authorization(side, [&] { return c->connect(); });
  if (!info) {
    std::cerr << "initialize failed: " << info.error().describe() << "\n";
    co_return 1;
  }
  std::cerr << "connected: protocol " << info->protocol_version << ", server " << info->info.dump() << "\n";
  int failures = 0;
  auto tools = co_await with_authorization(side, [&] { return c->list_tools(); });
  if (!tools) {
    std::cerr << "tools/list failed: " << tools.error().describe() << "\n";
    failures++;
  } else {
    for (const auto& tool : *tools) {
      const std::string name = tool.value("name", "");
      json arguments = json::object();
      if (name == "add_numbers") {
        arguments = {{"a", 5}, {"b", 3}};
      } else if (tool.contains("inputSchema") && tool["inputSchema"].contains("required") &&
                 !tool["inputSchema"]["required"].empty()) {
        continue;  // we would have to guess its arguments
      }
      auto called = co_await with_authorization(side, [&] { return c->call_tool(name, arguments); });
      if (!called) {
        std::cerr << name << " failed: " << called.error().describe() << "\n";
        failures++;
      } else {
        std::cerr << name << " -> " << called->dump() << "\n";
      }
    }
  }
  co_await c->close();
  co_return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: conformance_client <server-url>\n";
    return 2;
  }
  harness::core::init_logging({});
  server_config config = configure(argv[argc - 1]);
  client_limits limits;
  limits.request_timeout = std::chrono::seconds(10);
  limits.max_request_time = std::chrono::seconds(20);
  asio::io_context ctx;
  harness_side side;
  side.http = net::create_http_client(net::start_curl_loop());
  oauth_options options;
  options.redirect_uri = [] { return std::string(redirect_uri); };
  options.client_name = "mcp-harness conformance client";
  side.oauth = create_oauth_manager(ctx.get_executor(), core::real_clock(), side.http, memory_token_store(), options);
  side.authorizer = side.oauth->authorizer_for(config);
  auto transport =
      create_http_transport(ctx.get_executor(), core::real_clock(), config, limits, side.http, side.authorizer);
  auto c = create_client(ctx.get_executor(), core::real_clock(), transport, limits);
  auto result = asio::co_spawn(ctx, run_client(c, side), asio::use_future);
  ctx.run();
  return result.get();
}
