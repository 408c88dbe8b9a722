// Hostile input at the real binary's front door: documents nested far past
// core::max_json_depth (just under the body limit) on every JSON door, and
// requests that a web page could send through a rebound name. After each, the
// same process must still answer.
#include <gtest/gtest.h>

#include "http/server_process.hpp"
#include "support/raw_http.hpp"

namespace harness::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
using env_map = std::map<std::string, std::string>;

// `levels` nested arrays around `inner`: "[[[...inner...]]]".
std::string nested_arrays(std::size_t levels, const std::string& inner = "") {
  return std::string(levels, '[') + inner + std::string(levels, ']');
}

// One request on its own connection, with exactly the headers given.
std::optional<raw_response> send_raw(unsigned short port, const std::string& head, const std::string& body = {}) {
  raw_connection connection(port);
  std::string request = head;
  if (!body.empty()) request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  request += "Connection: close\r\n\r\n" + body;
  if (!connection.send(request)) return std::nullopt;
  return connection.read_response(10s);
}

void expect_alive(unsigned short port) {
  auto live = http_call(port, "GET", "/health/live");
  ASSERT_TRUE(live) << "the server stopped answering";
  EXPECT_EQ(live->status, 200);
}

// 400,000 levels: about 800 KB, under the default 1 MiB body limit.
constexpr std::size_t deep = 400000;

TEST(HostileInput, DeeplyNestedBodiesAre400OnEveryJsonRoute) {
  ServerProcess server;
  for (const auto* target : {"/task", "/execute", "/tasks/task_1/approvals/appr_1"}) {
    auto r = http_call(server.port(), "POST", target, nested_arrays(deep), "application/json");
    ASSERT_TRUE(r) << target;
    EXPECT_EQ(r->status, 400) << target << ": " << r->body;
    EXPECT_EQ(r->json()["error"]["code"], "invalid_body") << target;
    EXPECT_NE(r->body.find("nests deeper than 256 levels"), std::string::npos) << r->body;
    expect_alive(server.port());
  }
  // Nesting inside a real field ("userId" holds it) is refused the same way.
  auto field = http_call(server.port(), "POST", "/execute", R"({"userId":)" + nested_arrays(deep, "1") + "}",
                         "application/json");
  ASSERT_TRUE(field);
  EXPECT_EQ(field->status, 400) << field->body;
  // 256 levels are still a document (refused for what it says, not how deep it is).
  auto at_limit = http_call(server.port(), "POST", "/execute", R"({"userId":"a","code":)" + nested_arrays(255) + "}",
                            "application/json");
  ASSERT_TRUE(at_limit);
  EXPECT_EQ(at_limit->status, 400);
  EXPECT_EQ(at_limit->body.find("nests deeper"), std::string::npos) << at_limit->body;
  expect_alive(server.port());
}

TEST(HostileInput, DeeplyNestedMcpMessagesGetJsonRpcErrors) {
  ServerProcess server;
  const std::string head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server.port()) +
                           "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n";
  std::string initialize = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
                           R"("clientInfo":{"name":"x","version":"1"},"capabilities":)" +
                           nested_arrays(deep) + "}}";
  auto r = send_raw(server.port(), head, initialize);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
  EXPECT_EQ(r->json()["error"]["code"], -32700);
  EXPECT_NE(r->json()["error"]["message"].get<std::string>().find("nests deeper than 256 levels"), std::string::npos)
      << r->body;
  expect_alive(server.port());
  // A well-formed initialize still opens a session afterwards.
  auto ok = send_raw(server.port(), head,
                     R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
                     R"("clientInfo":{"name":"x","version":"1"},"capabilities":{}}})");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
}

TEST(HostileInput, ARequestThroughAReboundNameIsRefused) {
  ServerProcess server(env_map{{"ALLOWED_HOSTS", ""}});  // the defaults: loopback HOST, open mode
  const auto port = std::to_string(server.port());
  auto rebound = send_raw(server.port(), "GET /tasks HTTP/1.1\r\nHost: attacker.example:" + port + "\r\n");
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 421) << rebound->body;
  EXPECT_EQ(rebound->json()["error"]["code"], "host_not_allowed");
  EXPECT_NE(rebound->body.find("ALLOWED_HOSTS"), std::string::npos);
  // Another port on loopback is another server's name.
  auto other_port = send_raw(server.port(), "GET /tasks HTTP/1.1\r\nHost: localhost:1\r\n");
  ASSERT_TRUE(other_port);
  EXPECT_EQ(other_port->status, 421);
  // The server's own names are served.
  for (const std::string& host : {"localhost:" + port, "127.0.0.1:" + port}) {
    auto own = send_raw(server.port(), "GET /health/live HTTP/1.1\r\nHost: " + host + "\r\n");
    ASSERT_TRUE(own);
    EXPECT_EQ(own->status, 200) << host;
  }
  // A page of another site, sent to the right name, may not run code while the server is open.
  auto page = send_raw(server.port(),
                       "POST /execute HTTP/1.1\r\nHost: 127.0.0.1:" + port +
                           "\r\nOrigin: http://attacker.example\r\nContent-Type: application/json\r\n",
                       R"({"userId":"alice","code":"return 1"})");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 403) << page->body;
  EXPECT_EQ(page->json()["error"]["code"], "origin_not_allowed");
  expect_alive(server.port());
}

// A percent-encoded CR LF in the path is decoded before it is logged: it
// must not start a line of its own in the text log.
TEST(HostileInput, ControlCharactersInAPathCannotForgeALogLine) {
  ServerProcess server(env_map{{"LOG_FORMAT", "text"}});
  auto r = http_call(server.port(), "GET", "/nope%0D%0A2026-01-01T00:00:00.000%20info%20forged-line%0A");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  ASSERT_TRUE(server.process().wait_for_output("forged-line", 5s));
  const auto& log = server.process().output();
  EXPECT_EQ(log.find("\n2026-01-01T00:00:00.000 info forged-line"), std::string::npos) << log;
  EXPECT_NE(log.find("/nope\\r\\n2026-01-01T00:00:00.000 info forged-line\\n 404"), std::string::npos) << log;
}

// One caller cannot hold every /mcp session: past its share, 429 in JSON-RPC
// with Retry-After, while another user still gets one.
TEST(HostileInput, OneUserHoldsAtMostItsShareOfMcpSessions) {
  ServerProcess server(env_map{{"MCP_MAX_SESSIONS_PER_USER", "1"}});
  auto initialize = [&](const std::string& user) {
    return send_raw(server.port(),
                    "POST /mcp?userId=" + user + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server.port()) +
                        "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n",
                    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
                    R"("clientInfo":{"name":"x","version":"1"},"capabilities":{}}})");
  };
  auto first = initialize("mallory");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200) << first->body;
  auto second = initialize("mallory");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 429) << second->body;
  EXPECT_EQ(second->json()["error"]["code"], -32000);
  EXPECT_NE(second->body.find("MCP_MAX_SESSIONS_PER_USER"), std::string::npos);
  EXPECT_EQ(second->header("retry-after"), "5");
  auto other = initialize("alice");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 200) << other->body;
}

TEST(HostileInput, AllowedHostsNameTheHostsAProxySends) {
  ServerProcess server(env_map{{"ALLOWED_HOSTS", "harness.example.com"}});
  auto named = send_raw(server.port(), "GET /health/live HTTP/1.1\r\nHost: harness.example.com\r\n");
  ASSERT_TRUE(named);
  EXPECT_EQ(named->status, 200);
  auto other = send_raw(server.port(), "GET /health/live HTTP/1.1\r\nHost: other.example.com\r\n");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 421);
}

}  // namespace
}  // namespace harness::testing
