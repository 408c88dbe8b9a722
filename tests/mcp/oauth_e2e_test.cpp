// A remote MCP server over HTTPS behind OAuth, end to end with the real
// binary: the certificate comes from a CA made for the test (trusted through
// TLS_EXTRA_CA_FILE), the harness registers itself (RFC 7591), /health shows
// the operator an authorizationUrl, a browser's way through the authorization
// server ends at the harness's GET /oauth/callback, and then code in a real
// sandbox calls the server's tool with the token. Tokens are kept sealed, are
// refreshed before they expire, and survive a restart.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "harness/net/http_client.hpp"
#include "harness/net/url.hpp"
#include "net/net_test_support.hpp"
#include "support/harness_server.hpp"
#include "support/oauth_test_server.hpp"
#include "support/run_sync.hpp"

namespace harness::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
namespace fs = std::filesystem;

// The remote server over HTTPS as https://localhost:<port>.
struct oauth_server : oauth_test_server {
  explicit oauth_server(const net::testing::test_ca& ca, const std::map<std::string, std::string>& env = {})
      : oauth_test_server(ca.server_pem, ca.server_key, env) {}
};

json fetch_json(net::http_client& http, const std::string& url) {
  boost::asio::io_context io;
  net::request r;
  r.url = url;
  auto answer = run_sync(io, http.fetch(r));
  if (!answer) throw std::runtime_error(answer.error().describe());
  return json::parse(answer->body);
}

// The server's /health entry for the remote server, polled until `done` says so (bounded).
json wait_for_server(harness_server& server, const std::function<bool(const json&)>& done,
                     std::chrono::seconds timeout = 60s) {
  json entry;
  for (auto until = std::chrono::steady_clock::now() + timeout; std::chrono::steady_clock::now() < until;) {
    auto health = server.call("GET", "/health");
    if (health && !health->body.empty()) {
      entry = json::parse(health->body)["components"].value("mcp.notes", json::object());
      if (done(entry)) return entry;
    }
    std::this_thread::sleep_for(200ms);
  }
  return entry;
}

// The URL of the log's "needs authorization by a person: open <url> (...)" line.
std::string authorization_url_in_log(const std::string& log) {
  const std::string marker = "needs authorization by a person: open ";
  auto at = log.find(marker);
  if (at == std::string::npos) return {};
  at += marker.size();
  return log.substr(at, log.find(' ', at) - at);
}

class OAuthEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("harness-oauth-e2e-" + std::to_string(::getpid()));
    fs::create_directories(root / "files");
    owner = "harness-oauth-e2e-" + std::to_string(::getpid());
  }
  void TearDown() override {
    EXPECT_EQ(labelled_containers(owner), 0);
    std::error_code ec;
    fs::remove_all(root, ec);
  }

  // `entry` adds fields to the server's mcpServers entry.
  std::map<std::string, std::string> env(const oauth_server& remote, const std::string& ca_file,
                                         json entry = json::object()) {
    entry["url"] = remote.url("/mcp");
    std::ofstream(root / "mcp.json") << json{{"mcpServers", {{"notes", entry}}}}.dump();
    return end_to_end_env(owner, root.string(), (root / "files").string(), "http://127.0.0.1:9/v1",
                          {{"MCP_CONFIG", (root / "mcp.json").string()},
                           {"TLS_EXTRA_CA_FILE", ca_file},
                           {"OAUTH_TOKEN_FILE", (root / "oauth-tokens.json").string()},
                           {"API_KEYS_FILE", (root / "no-keys" / "api-keys.json").string()}});
  }

  fs::path root;
  std::string owner;
};

TEST_F(OAuthEndToEnd, AnOperatorAuthorizesInABrowserAndCodeCallsTheToolWithTheToken) {
  net::testing::test_ca ca;
  // Tokens live 6 s: the harness renews them half their life before they expire, so within seconds.
  oauth_server remote(ca, {{"ACCESS_TTL", "6"}});
  net::curl_loop_options trusting;
  trusting.extra_ca_file = ca.ca_pem;
  auto browser = net::create_http_client(net::start_curl_loop(trusting));
  {
    harness_server server(env(remote, ca.ca_pem));
    // The harness discovered the server's OAuth, registered itself, and waits for a person.
    auto waiting = wait_for_server(server, [](const json& e) {
      return e.value("state", "") == "needs_authorization" && e["oauth"].contains("authorizationUrl");
    });
    ASSERT_EQ(waiting.value("state", ""), "needs_authorization") << waiting.dump() << server.output();
    // Running open, /health says where the URL is instead of showing it to anything that reaches the port.
    EXPECT_NE(waiting["oauth"]["authorizationUrl"].get<std::string>().find("in the server's log"), std::string::npos);
    const std::string url = authorization_url_in_log(server.output());
    ASSERT_FALSE(url.empty()) << server.output();
    EXPECT_EQ(url.rfind(remote.url("/authorize?"), 0), 0u) << url;
    EXPECT_NE(url.find("code_challenge_method=S256"), std::string::npos);
    EXPECT_NE(url.find("resource=https%3A%2F%2Flocalhost"), std::string::npos);
    EXPECT_NE(url.find("scope=notes%3Aread%20offline_access"), std::string::npos) << url;
    EXPECT_EQ(fetch_json(*browser, remote.url("/stats"))["registrations"], 1);

    // The browser: the authorization server redirects to the harness's callback.
    boost::asio::io_context io;
    net::request open_url;
    open_url.url = url;
    auto redirect = run_sync(io, browser->fetch(open_url));
    ASSERT_TRUE(redirect) << redirect.error().describe();
    ASSERT_EQ(redirect->status, 302);
    auto back = net::parse_url(redirect->header("location").value_or(""));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->path, "/oauth/callback");
    EXPECT_EQ(back->port, std::to_string(server.port()));
    const std::string callback = back->path + "?" + back->query;
    auto page = server.call("GET", callback);
    ASSERT_TRUE(page);
    EXPECT_EQ(page->status, 200) << page->body;
    EXPECT_NE(page->body.find("notes is authorized"), std::string::npos) << page->body;
    EXPECT_EQ(page->header("content-security-policy"), "default-src 'none'; frame-ancestors 'none'");
    // The same callback again: its state was single use.
    auto replay = server.call("GET", callback);
    ASSERT_TRUE(replay);
    EXPECT_EQ(replay->status, 400);

    auto ready = wait_for_server(server, [](const json& e) { return e.value("state", "") == "ready"; });
    ASSERT_EQ(ready.value("state", ""), "ready") << ready.dump();
    EXPECT_EQ(ready["oauth"]["state"], "authorized");
    EXPECT_EQ(ready["oauth"]["client"], "registered");

    // Code in a sandbox calls the tool; the token goes along.
    ASSERT_TRUE(server.wait_healthy(1, {}, 60s));
    auto ran = server.call("POST", "/execute",
                           R"json({"userId": "alice", "code": "return await callMCPTool('notes__whoami', {})"})json",
                           30s, "Content-Type: application/json\r\n");
    ASSERT_TRUE(ran);
    EXPECT_EQ(ran->status, 200) << ran->body;
    EXPECT_EQ(ran->json()["result"]["scope"], "notes:read offline_access") << ran->body;

    // Renewed before it expires, without any request needing it.
    int refreshes = 0;
    for (int i = 0; i < 50 && refreshes == 0; ++i) {
      refreshes = fetch_json(*browser, remote.url("/stats"))["refreshes"];
      if (refreshes == 0) std::this_thread::sleep_for(200ms);
    }
    EXPECT_GE(refreshes, 1);
    EXPECT_EQ(server.stop(), 0) << server.output();
  }

  // Kept sealed: mode 600, and no token in the clear.
  struct stat st {};
  ASSERT_EQ(::stat((root / "oauth-tokens.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::stringstream kept;
  kept << std::ifstream(root / "oauth-tokens.json").rdbuf();
  EXPECT_EQ(kept.str().find("at-"), std::string::npos);
  EXPECT_EQ(kept.str().find("rt-"), std::string::npos);
  EXPECT_EQ(kept.str().find("secret-"), std::string::npos);
  EXPECT_NE(kept.str().find("aes-256-gcm"), std::string::npos);

  // A restart uses the kept tokens: no person, no new registration.
  {
    harness_server server(env(remote, ca.ca_pem));
    auto ready = wait_for_server(server, [](const json& e) { return e.value("state", "") == "ready"; });
    EXPECT_EQ(ready.value("state", ""), "ready") << ready.dump() << server.output();
    // ... and keeps renewing them with the kept registration.
    const int before = fetch_json(*browser, remote.url("/stats"))["refreshes"];
    int after = before;
    for (int i = 0; i < 50 && after == before; ++i) {
      std::this_thread::sleep_for(200ms);
      after = fetch_json(*browser, remote.url("/stats"))["refreshes"];
    }
    EXPECT_GT(after, before);
    EXPECT_EQ(fetch_json(*browser, remote.url("/stats"))["registrations"], 1);
    EXPECT_EQ(fetch_json(*browser, remote.url("/stats"))["authorizations"], 1);
    EXPECT_EQ(server.stop(), 0);
  }
}

TEST_F(OAuthEndToEnd, AServerWhoseCertificateDoesNotVerifyIsRefusedAndSaysWhy) {
  net::testing::test_ca ca;
  oauth_server remote(ca);
  harness_server server(env(remote, ""));  // the test CA is not trusted
  auto failed = wait_for_server(server, [](const json& e) { return e.value("state", "") == "failed"; });
  ASSERT_EQ(failed.value("state", ""), "failed") << failed.dump();
  EXPECT_NE(failed.value("reason", "").find("TLS_EXTRA_CA_FILE"), std::string::npos) << failed.dump();
  EXPECT_EQ(server.stop(), 0);
}

TEST_F(OAuthEndToEnd, ACallbackWithoutAPendingAuthorizationIsRefusedPlainly) {
  net::testing::test_ca ca;
  oauth_server remote(ca);
  harness_server server(env(remote, ca.ca_pem));
  for (const char* target :
       {"/oauth/callback", "/oauth/callback?code=x&state=forged", "/oauth/callback?state=forged&error=access_denied"}) {
    auto page = server.call("GET", target);
    ASSERT_TRUE(page);
    EXPECT_EQ(page->status, 400) << target;
    EXPECT_NE(page->body.find("Authorization failed"), std::string::npos);
    EXPECT_EQ(page->header("content-type"), "text/html; charset=utf-8");
  }
  EXPECT_EQ(server.stop(), 0);
}

// RFC 9207: the authorization server says it names itself in every
// authorization response; one that does not is refused, and its code is
// never redeemed (it may come from another server: a mix-up attack).
TEST_F(OAuthEndToEnd, AnAuthorizationResponseWithoutTheIssuerItPromisedIsRefused) {
  net::testing::test_ca ca;
  oauth_server remote(ca);
  net::curl_loop_options trusting;
  trusting.extra_ca_file = ca.ca_pem;
  auto browser = net::create_http_client(net::start_curl_loop(trusting));
  harness_server server(env(remote, ca.ca_pem));
  auto waiting = wait_for_server(server, [](const json& e) { return e.value("state", "") == "needs_authorization"; });
  ASSERT_EQ(waiting.value("state", ""), "needs_authorization") << waiting.dump() << server.output();
  const std::string url = authorization_url_in_log(server.output());
  ASSERT_FALSE(url.empty()) << server.output();
  boost::asio::io_context io;
  net::request open_url;
  open_url.url = url + "&iss=omit";
  auto redirect = run_sync(io, browser->fetch(open_url));
  ASSERT_TRUE(redirect) << redirect.error().describe();
  ASSERT_EQ(redirect->status, 302);
  auto back = net::parse_url(redirect->header("location").value_or(""));
  ASSERT_TRUE(back);
  ASSERT_EQ(back->query.find("iss="), std::string::npos) << back->query;
  auto page = server.call("GET", back->path + "?" + back->query);
  ASSERT_TRUE(page);
  EXPECT_NE(page->status, 200) << page->body;
  EXPECT_NE(page->body.find("Authorization failed"), std::string::npos) << page->body;
  EXPECT_NE(page->body.find("does not name its issuer"), std::string::npos) << page->body;
  EXPECT_EQ(fetch_json(*browser, remote.url("/stats"))["codes"], 0) << "the code was redeemed";
  auto still = server.call("GET", "/health");
  ASSERT_TRUE(still);
  EXPECT_EQ(still->status, 503) << still->body;
  browser.reset();
  EXPECT_EQ(server.stop(), 0);
}

// The issuer is pinned: configured, or the first one found. A server whose
// discovery names another gets nothing sent to it (no registration, no
// secret, no person's approval) until the operator names the new one.
TEST_F(OAuthEndToEnd, AnAuthorizationServerOtherThanThePinnedOneGetsNothing) {
  net::testing::test_ca ca;
  {
    oauth_server remote(ca);
    harness_server server(env(remote, ca.ca_pem, {{"oauth", {{"issuer", "https://as.example.com"}}}}));
    auto failed = wait_for_server(server, [](const json& e) { return e.value("state", "") == "failed"; });
    ASSERT_EQ(failed.value("state", ""), "failed") << failed.dump() << server.output();
    EXPECT_NE(failed.value("reason", "").find("not https://as.example.com"), std::string::npos) << failed.dump();
    EXPECT_NE(failed.value("reason", "").find("nothing was sent to it"), std::string::npos) << failed.dump();
    net::curl_loop_options trusting;
    trusting.extra_ca_file = ca.ca_pem;
    auto browser = net::create_http_client(net::start_curl_loop(trusting));
    EXPECT_EQ(fetch_json(*browser, remote.url("/stats"))["registrations"], 0);
    EXPECT_EQ(server.stop(), 0);
  }
  // Trust on first use (with a token file of its own: the configured pin above is kept in the first one)...
  fs::remove(root / "oauth-tokens.json");
  std::string first_issuer;
  {
    oauth_server remote(ca);
    first_issuer = remote.url("");
    harness_server server(env(remote, ca.ca_pem));
    auto waiting = wait_for_server(server, [](const json& e) { return e.value("state", "") == "needs_authorization"; });
    ASSERT_EQ(waiting.value("state", ""), "needs_authorization") << waiting.dump() << server.output();
    EXPECT_EQ(server.stop(), 0);
  }
  // ...so the same server moved behind another authorization server is refused, and says how to accept it.
  oauth_server moved(ca);
  harness_server server(env(moved, ca.ca_pem));
  auto failed = wait_for_server(server, [](const json& e) { return e.value("state", "") == "failed"; });
  ASSERT_EQ(failed.value("state", ""), "failed") << failed.dump() << server.output();
  EXPECT_NE(failed.value("reason", "").find("not " + first_issuer), std::string::npos) << failed.dump();
  EXPECT_NE(failed.dump().find("\\\"issuer\\\": \\\"" + moved.url("")), std::string::npos) << failed.dump();
  EXPECT_NE(server.output().find("refused"), std::string::npos);
  EXPECT_EQ(server.stop(), 0);
}

// A pin that cannot be read (a damaged token file, a vault key that changed)
// is no pin to replace: the server is refused until it can be read.
TEST_F(OAuthEndToEnd, AnUnreadableIssuerPinIsNotReplaced) {
  net::testing::test_ca ca;
  oauth_server remote(ca);
  {
    harness_server server(env(remote, ca.ca_pem));
    auto waiting = wait_for_server(server, [](const json& e) { return e.value("state", "") == "needs_authorization"; });
    ASSERT_EQ(waiting.value("state", ""), "needs_authorization") << waiting.dump() << server.output();
    EXPECT_EQ(server.stop(), 0);
  }
  const fs::path file = root / "oauth-tokens.json";
  json tokens = json::parse(std::ifstream(file));
  ASSERT_TRUE(tokens.contains("issuer:notes")) << tokens.dump();
  // Still a sealed value, whose bytes no longer open (as after a key change).
  ASSERT_TRUE(tokens["issuer:notes"].contains("data")) << tokens.dump();
  tokens["issuer:notes"]["data"] = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  std::ofstream(file) << tokens.dump();
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
  harness_server server(env(remote, ca.ca_pem));
  auto failed = wait_for_server(server, [](const json& e) { return e.value("state", "") == "failed"; });
  ASSERT_EQ(failed.value("state", ""), "failed") << failed.dump() << server.output();
  EXPECT_NE(failed.value("reason", "").find("pinned OAuth issuer of notes cannot be read"), std::string::npos)
      << failed.dump();
  EXPECT_EQ(server.stop(), 0);
}

// Discovery fetches URLs the remote server names: a server not allowed the
// private network cannot make the harness fetch from loopback.
TEST_F(OAuthEndToEnd, DiscoveryIsNotFetchedFromAPrivateAddressUnlessAllowed) {
  net::testing::test_ca ca;
  oauth_server remote(ca);
  harness_server server(env(remote, ca.ca_pem, {{"allowPrivateNetwork", false}}));
  auto failed = wait_for_server(server, [](const json& e) { return e.value("state", "") == "failed"; });
  ASSERT_EQ(failed.value("state", ""), "failed") << failed.dump() << server.output();
  EXPECT_NE(failed.value("reason", "").find("not on the public internet"), std::string::npos) << failed.dump();
  EXPECT_NE(failed.dump().find("allowPrivateNetwork"), std::string::npos) << failed.dump();
  EXPECT_EQ(server.stop(), 0);
}

}  // namespace
}  // namespace harness::testing
