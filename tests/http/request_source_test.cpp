// Where a request comes from (Host and Origin, against DNS rebinding): the
// rules on their own, then through the real dispatcher over every route of
// make_api_router(). The real binary answering a rebound Host is in
// server_integration_test.cpp.
#include <gtest/gtest.h>

#include "harness/auth/key_store.hpp"
#include "harness/http/access_gate.hpp"
#include "harness/http/api.hpp"
#include "harness/http/request_source.hpp"
#include "harness/http/services.hpp"
#include "http/run_dispatch.hpp"
#include "http/stub_agent.hpp"

namespace harness::http {
namespace {

using json = nlohmann::json;

request_sources loopback_on(unsigned short port, std::vector<std::string> hosts = {},
                            std::vector<std::string> origins = {}) {
  request_sources sources(
      {.loopback_server = true, .allowed_hosts = std::move(hosts), .mcp_allowed_origins = std::move(origins)});
  sources.set_port(port);
  return sources;
}

TEST(RequestSources, ALoopbackServerAnswersLoopbackNamesWithItsOwnPortOnly) {
  auto sources = loopback_on(3000);
  for (const char* ok : {"localhost:3000", "LOCALHOST:3000", "127.0.0.1:3000", "127.1.2.3:3000", "[::1]:3000"}) {
    EXPECT_FALSE(sources.check_host(ok)) << ok;
  }
  for (const char* bad : {"attacker.example", "attacker.example:3000", "localhost", "localhost:3001", "127.0.0.1:80",
                          "localhost.attacker.example:3000", "127.0.0.1.nip.io:3000", "[::1]", "user@localhost:3000",
                          "localhost:3000/x", "", "localhost:", "localhost:3000:1", "[::2]:3000", "0.0.0.0:3000"}) {
    auto refused = sources.check_host(std::string_view(bad));
    ASSERT_TRUE(refused) << bad;
    EXPECT_EQ(refused->code, http::errc::host_not_allowed);
    EXPECT_EQ(refused->code.http_status(), 421u);
    EXPECT_NE(refused->hint.find("ALLOWED_HOSTS"), std::string::npos);
  }
  // No Host at all (HTTP/1.0, never a browser) is no rebinding.
  EXPECT_FALSE(sources.check_host(std::nullopt));
}

TEST(RequestSources, PortEightyMayBeLeftOut) {
  auto sources = loopback_on(80);
  EXPECT_FALSE(sources.check_host("localhost"));
  EXPECT_FALSE(sources.check_host("localhost:80"));
  EXPECT_TRUE(sources.check_host("localhost:8080"));
}

TEST(RequestSources, AllowedHostsAddNamesWithAnyPortOrTheirOwn) {
  auto hosts = parse_allowed_hosts(" Harness.Example.com, proxy.local:8443 ,");
  ASSERT_TRUE(hosts) << hosts.error().message;
  EXPECT_EQ(*hosts, (std::vector<std::string>{"harness.example.com", "proxy.local:8443"}));
  auto sources = loopback_on(3000, *hosts);
  EXPECT_FALSE(sources.check_host("harness.example.com"));
  EXPECT_FALSE(sources.check_host("HARNESS.example.com:443"));
  EXPECT_FALSE(sources.check_host("proxy.local:8443"));
  EXPECT_TRUE(sources.check_host("proxy.local"));
  EXPECT_TRUE(sources.check_host("proxy.local:3000"));
  EXPECT_TRUE(sources.check_host("evil.harness.example.com"));
  EXPECT_FALSE(sources.check_host("localhost:3000"));

  for (const char* bad : {"a/b", "user@host", "*.example.com", "host:port", "[::1", "host:1234567"}) {
    auto refused = parse_allowed_hosts(bad);
    ASSERT_FALSE(refused) << bad;
    EXPECT_NE(refused.error().message.find("ALLOWED_HOSTS"), std::string::npos);
  }
}

TEST(RequestSources, ElsewhereAnEmptyListServesEveryHostAndAListIsEnforced) {
  request_sources open_host({.loopback_server = false});
  open_host.set_port(3000);
  EXPECT_FALSE(open_host.check_host("anything.example"));
  request_sources listed({.loopback_server = false, .allowed_hosts = {"harness.example.com"}});
  listed.set_port(3000);
  EXPECT_FALSE(listed.check_host("harness.example.com"));
  EXPECT_FALSE(listed.check_host("localhost:3000"));
  EXPECT_TRUE(listed.check_host("10.1.2.3:3000"));
}

TEST(RequestSources, OwnOriginsAreLoopbackWithThePortOrListedHosts) {
  auto sources = loopback_on(3000, {"harness.example.com"}, {"https://app.example.com"});
  for (const char* own : {"http://localhost:3000", "http://127.0.0.1:3000", "https://[::1]:3000",
                          "HTTP://LOCALHOST:3000", "https://harness.example.com"}) {
    EXPECT_TRUE(sources.same_origin(own)) << own;
    EXPECT_TRUE(sources.mcp_origin_allowed(own)) << own;
  }
  // Every port of every loopback origin is no longer the server's own.
  for (const char* foreign : {"http://localhost:3001", "http://127.0.0.1:8080", "http://localhost", "null", "",
                              "http://evil.example.com", "file://", "http://localhost:3000/path",
                              "http://user@localhost:3000", "ftp://localhost:3000", "http://127.0.0.1.nip.io:3000"}) {
    EXPECT_FALSE(sources.same_origin(foreign)) << foreign;
    EXPECT_FALSE(sources.mcp_origin_allowed(foreign)) << foreign;
  }
  EXPECT_FALSE(sources.same_origin("https://app.example.com"));
  EXPECT_TRUE(sources.mcp_origin_allowed("https://APP.example.com"));
  EXPECT_FALSE(sources.mcp_origin_allowed("https://app.example.com:444"));
  // A server elsewhere with no list has no own origin to recognise.
  request_sources elsewhere;
  EXPECT_FALSE(elsewhere.same_origin("http://localhost:3000"));
}

// Every route of the table, on a loopback server running open.
class RequestSourceRoutes : public ::testing::Test {
 protected:
  RequestSourceRoutes() {
    svc.agent = std::make_shared<testing::stub_agent>();
    svc.sources = loopback_on(3000);
  }

  http_response send(const route& r, header_list headers) {
    std::string path = r.pattern;
    for (auto [from, to] : {std::pair{"{id}", "task_1"},
                            {"{userId}", "alice"},
                            {"{name}", "notes"},
                            {"{approvalId}", "appr_1"},
                            {"{path...}", "x.txt"}}) {
      if (auto at = path.find(from); at != std::string::npos) path.replace(at, std::string_view(from).size(), to);
    }
    auto request = make_request(r.method, path);
    request.headers = std::move(headers);
    if (r.json_body) {
      request.headers.emplace_back("Content-Type", "application/json");
      request.body = R"({"userId":"alice","task":"t","code":"return 1","decision":"approve"})";
    }
    return run_dispatch(routes, svc, request);
  }

  router routes = make_api_router();
  services svc{core::real_clock()};
};

TEST_F(RequestSourceRoutes, ARequestNamingAnotherHostIsRefusedOnEveryRoute) {
  for (const auto& r : routes.routes()) {
    auto answer = send(r, {{"Host", "attacker.example:3000"}});
    EXPECT_EQ(answer.status, 421u) << r.method << " " << r.pattern;
    EXPECT_EQ(json::parse(answer.body)["error"]["code"], "host_not_allowed") << r.pattern;
    EXPECT_NE(send(r, {{"Host", "127.0.0.1:3000"}}).status, 421u) << r.method << " " << r.pattern;
  }
  // An unknown path too: a rebound name learns nothing, not even what exists.
  auto missing = make_request("GET", "/nope");
  missing.headers = {{"Host", "attacker.example"}};
  EXPECT_EQ(run_dispatch(routes, svc, missing).status, 421u);
}

TEST_F(RequestSourceRoutes, OpenModeRefusesForeignPagesOnEveryRouteThatHoldsData) {
  for (const auto& r : routes.routes()) {
    auto answer = send(r, {{"Host", "127.0.0.1:3000"}, {"Origin", "http://attacker.example"}});
    if (r.access == route_access::open) {
      EXPECT_NE(answer.status, 403u) << r.method << " " << r.pattern;
      continue;
    }
    EXPECT_EQ(answer.status, 403u) << r.method << " " << r.pattern;
    auto code = json::parse(answer.body)["error"]["code"];
    // /mcp answers in JSON-RPC, as MCP's transport asks.
    if (r.pattern == "/mcp") continue;
    EXPECT_EQ(code, "origin_not_allowed") << r.pattern;
  }
  // The dashboard's own pages are served.
  for (const auto& r : routes.routes()) {
    if (r.pattern == "/mcp") continue;
    auto own = send(r, {{"Host", "127.0.0.1:3000"}, {"Origin", "http://127.0.0.1:3000"}});
    EXPECT_NE(own.status, 403u) << r.method << " " << r.pattern << ": " << own.body;
  }
}

TEST_F(RequestSourceRoutes, WithKeysAForeignOriginMeetsTheKeyCheckInstead) {
  access_gate::options options;
  options.keys = auth::create_memory_key_store({});
  svc.access = std::make_shared<access_gate>(options);  // keys mode: open_while_no_keys is off
  auto tasks = make_request("GET", "/tasks");
  tasks.headers = {{"Host", "localhost:3000"}, {"Origin", "http://attacker.example"}};
  auto answer = run_dispatch(routes, svc, tasks);
  EXPECT_EQ(answer.status, 401u) << answer.body;
}

}  // namespace
}  // namespace harness::http
