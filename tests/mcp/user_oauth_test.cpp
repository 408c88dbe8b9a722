// Per-user OAuth for a user-scoped remote server, in process against a real
// authorization server and MCP server (tests/mcp/oauth_mcp_server.js over
// plain HTTP on loopback): each user connects their own account, their calls
// carry only their own token, a second registry sharing the users' token
// store (a replica) uses a connection made through the first, and
// disconnecting revokes the tokens at the authorization server.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "harness/core/clock.hpp"
#include "harness/mcp/errors.hpp"
#include "harness/mcp/oauth.hpp"
#include "harness/mcp/tool_registry.hpp"
#include "harness/mcp/transport.hpp"
#include "harness/net/http_client.hpp"
#include "harness/net/url.hpp"
#include "support/oauth_test_server.hpp"
#include "support/run_sync.hpp"
#include "support/stopped_curl_loop.hpp"

namespace harness::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
namespace asio = boost::asio;

// One harness's side: an OAuth manager and a registry with the user-scoped
// server, sharing `users` (the store replicas share) with any other.
struct replica {
  std::shared_ptr<mcp::oauth_manager> oauth;
  std::shared_ptr<mcp::tool_registry> registry;

  replica(asio::io_context& ctx, std::shared_ptr<net::http_client> http, const std::string& url,
          std::shared_ptr<mcp::user_token_store> users) {
    mcp::oauth_options options;
    options.redirect_uri = [] { return std::string("http://127.0.0.1:9/oauth/callback"); };
    oauth = mcp::create_oauth_manager(ctx.get_executor(), core::real_clock(), http, mcp::memory_token_store(), options,
                                      std::move(users));
    mcp::server_config notes;
    notes.name = "notes";
    notes.kind = mcp::transport_kind::http;
    notes.scope = mcp::server_scope::user;
    notes.url = url;
    notes.allow_private_network = true;  // loopback, as the config does for it
    mcp::mcp_config config;
    config.servers.push_back(notes);
    config.limits.startup_timeout = 20s;
    registry = mcp::create_tool_registry(ctx.get_executor(), core::real_clock(), config, nullptr,
                                         mcp::with_oauth(http, oauth));
  }
};

class UserOAuth : public ::testing::Test {
 protected:
  void SetUp() override {
    http = net::create_http_client(curl.loop);
    users = mcp::memory_user_token_store();
    one = std::make_unique<replica>(ctx, http, remote.url("/mcp"), users);
    run_until_done(ctx, one->registry->start());
  }
  void TearDown() override {
    for (auto* r : {one.get(), two.get()}) {
      if (r) run_until_done(ctx, r->registry->stop());
    }
  }

  result<json> whoami(replica& on, const std::string& user) {
    mcp::call_deadline deadline(20000ms);
    deadline.user = user;
    return run_until_done(ctx, on.registry->call("notes__whoami", json::object(), deadline));
  }

  // The link in a needs_authorization message.
  static std::string link_in(const std::string& message) {
    const std::string marker = "open ";
    auto at = message.find(marker);
    if (at == std::string::npos) return {};
    at += marker.size();
    return message.substr(at, message.find(' ', at) - at);
  }

  // A person (`person`) opens `link` and approves; the browser comes back to `on`'s callback.
  result<mcp::oauth_completion> approve(replica& on, const std::string& link, const std::string& person) {
    net::request r;
    r.url = link + "&user=" + person;
    auto redirect = run_until_done(ctx, http->fetch(r));
    if (!redirect) return redirect.error();
    EXPECT_EQ(redirect->status, 302) << redirect->body;
    auto back = net::parse_url(redirect->header("location").value_or(""));
    EXPECT_TRUE(back);
    std::map<std::string, std::string> query;
    for (auto& [k, v] : net::form_decode(back ? back->query : "")) query[k] = v;
    return run_until_done(ctx, on.oauth->complete(query));
  }

  json stats() {
    net::request r;
    r.url = remote.url("/stats");
    auto answer = run_until_done(ctx, http->fetch(r));
    return answer ? json::parse(answer->body) : json();
  }

  asio::io_context ctx;
  stopped_curl_loop curl;    // stopped before ctx goes
  oauth_test_server remote;  // plain HTTP
  std::shared_ptr<net::http_client> http;
  std::shared_ptr<mcp::user_token_store> users;
  std::unique_ptr<replica> one, two;
};

TEST_F(UserOAuth, EachUserConnectsTheirOwnAccountAndCallsAsThemselves) {
  // Alice's first call fails at once, with her link.
  auto first = whoami(*one, "alice");
  ASSERT_FALSE(first);
  EXPECT_EQ(first.error().code, mcp::errc::needs_authorization) << first.error().describe();
  const std::string alice_link = link_in(first.error().message);
  ASSERT_EQ(alice_link.rfind(remote.url("/authorize?"), 0), 0u) << first.error().message;
  EXPECT_NE(first.error().hint.find("/connections"), std::string::npos);

  // Her connection says the same.
  auto listed = run_until_done(ctx, one->registry->connections("alice"));
  ASSERT_EQ(listed.size(), 1u) << listed.dump();
  EXPECT_EQ(listed[0]["server"], "notes");
  EXPECT_EQ(listed[0]["state"], "needs_authorization");
  EXPECT_EQ(listed[0]["authorizationUrl"], alice_link);

  auto done = approve(*one, alice_link, "alice");
  ASSERT_TRUE(done) << done.error().describe();
  EXPECT_EQ(done->server, "notes");
  EXPECT_EQ(done->user, "alice");
  auto as_alice = whoami(*one, "alice");
  ASSERT_TRUE(as_alice) << as_alice.error().describe();
  EXPECT_EQ((*as_alice)["user"], "alice") << as_alice->dump();
  EXPECT_EQ(run_until_done(ctx, one->registry->connections("alice"))[0]["state"], "connected");

  // Bob has not connected: his call is refused before it reaches the server, with a link of his own.
  const int calls_before = stats()["calls"];
  auto as_bob = whoami(*one, "bob");
  ASSERT_FALSE(as_bob);
  EXPECT_EQ(as_bob.error().code, mcp::errc::needs_authorization);
  const std::string bob_link = link_in(as_bob.error().message);
  EXPECT_NE(bob_link, alice_link);
  EXPECT_EQ(stats()["calls"], calls_before);
  EXPECT_EQ(run_until_done(ctx, one->registry->connections("bob"))[0]["state"], "needs_authorization");

  // Bob connects his own account; each now acts as themselves.
  ASSERT_TRUE(approve(*one, bob_link, "bob"));
  auto bob_now = whoami(*one, "bob");
  ASSERT_TRUE(bob_now) << bob_now.error().describe();
  EXPECT_EQ((*bob_now)["user"], "bob");
  EXPECT_EQ((*whoami(*one, "alice"))["user"], "alice");
  // One registration serves every user; each user approved once.
  EXPECT_EQ(stats()["registrations"], 1);
  EXPECT_EQ(stats()["authorizations"], 2);

  // A callback can be used once only: the same state again completes nothing.
  auto again = approve(*one, alice_link, "mallory");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, mcp::errc::oauth_callback_invalid);
  EXPECT_EQ((*whoami(*one, "alice"))["user"], "alice");
}

TEST_F(UserOAuth, AConnectionMadeThroughOneReplicaWorksOnTheOtherAndDisconnectingRevokesIt) {
  two = std::make_unique<replica>(ctx, http, remote.url("/mcp"), users);
  run_until_done(ctx, two->registry->start());
  // Alice's instance on replica two waits for her too.
  auto waiting = whoami(*two, "alice");
  ASSERT_FALSE(waiting);
  EXPECT_EQ(waiting.error().code, mcp::errc::needs_authorization);

  // She connects through replica one.
  auto started = run_until_done(ctx, one->registry->connect("alice", "notes"));
  ASSERT_TRUE(started) << started.error().describe();
  EXPECT_EQ((*started)["state"], "needs_authorization");
  ASSERT_TRUE(approve(*one, (*started)["authorizationUrl"], "alice"));

  // Replica two reads her tokens from the shared store: no second approval.
  auto on_two = whoami(*two, "alice");
  ASSERT_TRUE(on_two) << on_two.error().describe();
  EXPECT_EQ((*on_two)["user"], "alice");
  EXPECT_EQ(stats()["authorizations"], 1);
  EXPECT_EQ(stats()["callsBy"]["alice"], 1);

  // Disconnecting through replica two revokes her tokens and forgets them everywhere.
  auto forgotten = run_until_done(ctx, two->registry->disconnect("alice", "notes"));
  ASSERT_TRUE(forgotten) << forgotten.error().describe();
  EXPECT_GE(stats()["revocations"], 1);
  EXPECT_TRUE(run_until_done(ctx, users->load("alice", "notes"))->is_null());
  auto after = whoami(*one, "alice");  // replica one still held them: the server refuses them now
  ASSERT_FALSE(after);
  EXPECT_EQ(after.error().code, mcp::errc::needs_authorization) << after.error().describe();
  EXPECT_EQ(stats()["callsBy"]["alice"], 1);

  // Unknown servers are named as such.
  auto unknown = run_until_done(ctx, one->registry->connect("alice", "nope"));
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, mcp::errc::no_such_connection);
}

// The official TypeScript SDK's example server with OAuth (simpleStreamableHttp.js --oauth, SDK 1.32.2): its
// authorization server on another port, dynamic registration, PKCE, a demo login that approves at once.
TEST(UserOAuthOfficialServer, EachUserAuthorizesSeparatelyAgainstTheSdksExampleServer) {
  asio::io_context ctx;
  auto free_port = [&ctx] {
    asio::ip::tcp::acceptor acceptor(ctx, {asio::ip::make_address("127.0.0.1"), 0});
    return std::to_string(acceptor.local_endpoint().port());
  };
  const std::string mcp_port = free_port(), auth_port = free_port();
  child_process example(
      {find_on_path("node"),
       source_path("tests/mcp/versions/node_modules/sdk-2025-11-25/dist/esm/examples/server/simpleStreamableHttp.js"),
       "--oauth"},
      {{"MCP_PORT", mcp_port}, {"MCP_AUTH_PORT", auth_port}, {"NODE_EXTRA_CA_CERTS", ""}});
  ASSERT_TRUE(example.wait_for_output("listening on port " + mcp_port, 30s)) << example.output();

  stopped_curl_loop curl;  // stopped before ctx goes
  auto http = net::create_http_client(curl.loop);
  replica one(ctx, http, "http://localhost:" + mcp_port + "/mcp", mcp::memory_user_token_store());
  run_until_done(ctx, one.registry->start());
  auto greet = [&](const std::string& user) {
    mcp::call_deadline deadline(20000ms);
    deadline.user = user;
    return run_until_done(ctx, one.registry->call("notes__greet", {{"name", user}}, deadline));
  };
  auto link_of = [](const error& e) {
    const auto at = e.message.find("open ") + 5;
    return e.message.substr(at, e.message.find(' ', at) - at);
  };

  auto first = greet("alice");
  ASSERT_FALSE(first);
  ASSERT_EQ(first.error().code, mcp::errc::needs_authorization) << first.error().describe();
  const std::string alice_link = link_of(first.error());
  EXPECT_EQ(alice_link.rfind("http://localhost:" + auth_port + "/authorize?", 0), 0u) << alice_link;

  // The demo login approves at once: the browser goes straight back to the callback.
  net::request open;
  open.url = alice_link;
  auto redirect = run_until_done(ctx, http->fetch(open));
  ASSERT_TRUE(redirect) << redirect.error().describe();
  ASSERT_EQ(redirect->status, 302) << redirect->body;
  auto back = net::parse_url(redirect->header("location").value_or(""));
  ASSERT_TRUE(back);
  std::map<std::string, std::string> query;
  for (auto& [k, v] : net::form_decode(back->query)) query[k] = v;
  auto done = run_until_done(ctx, one.oauth->complete(query));
  ASSERT_TRUE(done) << done.error().describe();
  EXPECT_EQ(done->user, "alice");

  auto hello = greet("alice");
  ASSERT_TRUE(hello) << hello.error().describe();
  EXPECT_NE(hello->dump().find("Hello, alice"), std::string::npos) << hello->dump();
  // Bob has his own authorization to make: the call does not go out with alice's token.
  auto bobs = greet("bob");
  ASSERT_FALSE(bobs);
  EXPECT_EQ(bobs.error().code, mcp::errc::needs_authorization);
  EXPECT_NE(link_of(bobs.error()), alice_link);

  // Disconnected, alice is asked again.
  ASSERT_TRUE(run_until_done(ctx, one.registry->disconnect("alice", "notes")));
  auto again = greet("alice");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, mcp::errc::needs_authorization);
  run_until_done(ctx, one.registry->stop());
}

}  // namespace
}  // namespace harness::testing
