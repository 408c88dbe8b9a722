// Per-user OAuth end to end: two replicas of the real binary sharing one
// PostgreSQL store, a user-scoped remote server behind OAuth
// (tests/mcp/oauth_mcp_server.js), real sandboxes and the fake LLM. Alice
// connects her account through replica A (POST /connections, the browser's
// way through the authorization server back to A's /oauth/callback); her
// code then calls the server as alice on replica B too, while bob's calls are
// refused with his own link and never carry her token; a task records
// needs_authorization; disconnecting through B revokes her tokens and A
// sees her disconnected.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "harness/net/http_client.hpp"
#include "harness/net/url.hpp"
#include "llm/fake_llm_steps.hpp"
#include "support/oauth_test_server.hpp"
#include "support/run_sync.hpp"
#include "two_replicas_fixture.hpp"

namespace harness::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
namespace fs = std::filesystem;

class UserConnections : public two_replicas {
 protected:
  void SetUp() override {
    prepare("connections", {});
    std::ofstream(root / "mcp.json")
        << json{{"mcpServers", {{"notes", {{"scope", "user"}, {"url", remote.url("/mcp")}}}}}}.dump();
    settings["MCP_CONFIG"] = (root / "mcp.json").string();
    start_both();
    browser = net::create_http_client(net::start_curl_loop());
  }

  // The tool's answer, or {code, message} of the error the call threw.
  static json whoami(harness_server& server, const std::string& user) {
    return call(server, "POST", "/execute",
                {{"userId", user},
                 {"code",
                  "try { return await callMCPTool('notes__whoami', {}); }\n"
                  "catch (e) { return {code: e.code, message: e.message}; }"}},
                200)["result"];
  }

  json stats() {
    net::request r;
    r.url = remote.url("/stats");
    boost::asio::io_context io;
    auto answer = run_sync(io, browser->fetch(r));
    return answer ? json::parse(answer->body) : json();
  }

  // `person` opens `link` and approves; the browser's way back ends at `server`'s callback.
  std::string approve(harness_server& server, const std::string& link, const std::string& person) {
    boost::asio::io_context io;
    net::request r;
    r.url = link + "&user=" + person;
    auto redirect = run_sync(io, browser->fetch(r));
    EXPECT_TRUE(redirect && redirect->status == 302);
    if (!redirect) return {};
    auto back = net::parse_url(redirect->header("location").value_or(""));
    EXPECT_TRUE(back);
    if (!back) return {};
    EXPECT_EQ(back->port, std::to_string(server.port()));
    auto page = server.call("GET", back->path + "?" + back->query);
    EXPECT_TRUE(page);
    if (!page) return {};
    EXPECT_EQ(page->status, 200) << page->body;
    return page->body;
  }

  oauth_test_server remote;  // plain HTTP on loopback
  std::shared_ptr<net::http_client> browser;
};

TEST_F(UserConnections, AliceConnectsThroughOneReplicaAndActsAsHerselfOnBoth) {
  // Not connected: listed so, and her code's call fails at once with her link.
  auto listed = call(*a, "GET", "/connections?userId=alice", nullptr, 200);
  ASSERT_EQ(listed["connections"].size(), 1u) << listed.dump();
  EXPECT_EQ(listed["connections"][0]["server"], "notes");
  EXPECT_EQ(listed["connections"][0]["state"], "needs_authorization");
  auto refused = whoami(*a, "alice");
  EXPECT_EQ(refused["code"], "mcp_needs_authorization") << refused.dump();
  EXPECT_NE(refused["message"].get<std::string>().find(remote.url("/authorize?")), std::string::npos) << refused.dump();

  // She connects through A.
  auto started = call(*a, "POST", "/connections/notes?userId=alice", nullptr, 200);
  ASSERT_EQ(started["state"], "needs_authorization") << started.dump();
  const std::string link = started["authorizationUrl"];
  ASSERT_EQ(link.rfind(remote.url("/authorize?"), 0), 0u) << link;
  auto page = approve(*a, link, "alice");
  EXPECT_NE(page.find("notes is connected for user alice"), std::string::npos) << page;
  EXPECT_EQ(call(*a, "GET", "/connections?userId=alice", nullptr, 200)["connections"][0]["state"], "connected");

  // Her code acts as alice, on A and on B (B reads her tokens from the shared store).
  EXPECT_EQ(whoami(*a, "alice")["user"], "alice");
  auto on_b = whoami(*b, "alice");
  EXPECT_EQ(on_b["user"], "alice") << on_b.dump();
  EXPECT_EQ(call(*b, "GET", "/connections?userId=alice", nullptr, 200)["connections"][0]["state"], "connected");
  EXPECT_EQ(stats()["authorizations"], 1);

  // Bob is refused with a link of his own; nothing reaches the server as anyone for him.
  auto as_bob = whoami(*b, "bob");
  EXPECT_EQ(as_bob["code"], "mcp_needs_authorization") << as_bob.dump();
  EXPECT_EQ(as_bob["message"].get<std::string>().find(link), std::string::npos);
  EXPECT_FALSE(stats()["callsBy"].contains("bob"));
  EXPECT_EQ(stats()["callsBy"]["alice"], 2);

  // Bob's task records that his account is not connected.
  llm.push(json::array({code_step("try { return await callMCPTool('notes__whoami', {}); }\n"
                                  "catch (e) { return e.code; }"),
                        answer_step("You need to connect your notes account.")}));
  auto task = call(*b, "POST", "/task", {{"userId", "bob"}, {"task", "Who am I in notes?"}}, 200);
  ASSERT_EQ(task["status"], "succeeded") << task.dump();
  auto events = b->call("GET", "/tasks/" + task["taskId"].get<std::string>() + "/events", {}, 30s);
  ASSERT_TRUE(events);
  EXPECT_NE(events->body.find("event: needs_authorization"), std::string::npos) << events->body;
  EXPECT_NE(events->body.find(R"("connect":"POST /connections/notes")"), std::string::npos) << events->body;
  EXPECT_NE(events->body.find(R"("error":"mcp_needs_authorization")"), std::string::npos) << events->body;

  // Alice disconnects through B: her tokens are revoked and forgotten on both.
  auto gone = call(*b, "DELETE", "/connections/notes?userId=alice", nullptr, 200);
  EXPECT_EQ(gone["disconnected"], true);
  EXPECT_GE(stats()["revocations"], 1);
  EXPECT_EQ(call(*a, "GET", "/connections?userId=alice", nullptr, 200)["connections"][0]["state"],
            "needs_authorization");
  auto after = whoami(*a, "alice");
  EXPECT_EQ(after["code"], "mcp_needs_authorization") << after.dump();
  EXPECT_EQ(stats()["callsBy"]["alice"], 2);

  // A server that is not a user-scoped one with OAuth has no connection.
  auto unknown = call(*a, "POST", "/connections/fs?userId=alice", nullptr, 404);
  EXPECT_EQ(unknown["error"]["code"], "no_such_connection");
}

}  // namespace
}  // namespace harness::testing
