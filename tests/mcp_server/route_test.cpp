// /mcp through the real router and dispatcher (Streamable HTTP's rules:
// sessions, Origin, protocol version header, 202s, JSON-RPC error bodies),
// with the real face over fakes. The SDK client and the conformance suite
// drive the real server in the integration tests.
#include <gtest/gtest.h>

#include "harness/http/api.hpp"
#include "harness/http/services.hpp"
#include "harness/mcp_server/mcp_face.hpp"
#include "harness/mcp_server/modern.hpp"
#include "http/run_dispatch.hpp"
#include "mcp_server/fakes.hpp"

namespace harness::http {
namespace {

using json = nlohmann::json;
using mcp_server::fakes::rpc_request;

class McpRoute : public ::testing::Test {
 protected:
  void SetUp() override {
    svc.mcp = mcp_server::create_mcp_face(io.get_executor(), core::real_clock(),
                                          {.tools = tools, .execution = execution}, {});
  }
  void TearDown() override { harness::testing::run_until_done(io, svc.mcp->shutdown()); }

  http_response post(const json& message, header_list headers = {}, telemetry::span_parent trace = {}) {
    auto r = make_request("POST", "/mcp");
    r.trace = std::move(trace);  // what the connection sets: the request's own span
    r.headers = std::move(headers);
    r.headers.emplace_back("Content-Type", "application/json");
    r.headers.emplace_back("Accept", "application/json, text/event-stream");
    r.body = message.dump();
    // On the face's own executor, as the server runs it (a new-era call runs
    // on a coroutine of the face's).
    return harness::testing::run_until_done(io, dispatch(routes, svc, r));
  }
  // Opens a session; returns its id.
  std::string initialize() {
    auto r = post(rpc_request(0, "initialize", {{"protocolVersion", "2025-11-25"}}));
    EXPECT_EQ(r.status, 200u) << r.body;
    auto id = r.header("Mcp-Session-Id");
    EXPECT_TRUE(id.has_value());
    return id ? std::string(*id) : std::string();
  }
  static json body(const http_response& r) { return json::parse(r.body); }

  boost::asio::io_context io;
  router routes = make_api_router();
  services svc{core::real_clock()};
  std::shared_ptr<mcp_server::fakes::fake_tools> tools = std::make_shared<mcp_server::fakes::fake_tools>();
  std::shared_ptr<mcp_server::fakes::fake_execution> execution =
      std::make_shared<mcp_server::fakes::fake_execution>(io);
};

TEST_F(McpRoute, InitializeOpensASessionAndLaterRequestsUseIt) {
  auto id = initialize();
  ASSERT_EQ(id.size(), 36u);
  auto initialized = post({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, {{"Mcp-Session-Id", id}});
  EXPECT_EQ(initialized.status, 202u);
  EXPECT_TRUE(initialized.body.empty());
  auto list = post(rpc_request(1, "tools/list"), {{"Mcp-Session-Id", id}, {"MCP-Protocol-Version", "2025-11-25"}});
  ASSERT_EQ(list.status, 200u) << list.body;
  EXPECT_EQ(list.header("Content-Type"), "application/json");
  EXPECT_EQ(body(list)["result"]["tools"].size(), 3u);
  EXPECT_EQ(body(list)["id"], 1);
}

TEST_F(McpRoute, ARequestWithoutASessionIs400AndAnUnknownSessionIs404) {
  auto none = post(rpc_request(1, "tools/list"));
  EXPECT_EQ(none.status, 400u);
  EXPECT_EQ(body(none)["error"]["code"], -32000);
  auto unknown = post(rpc_request(1, "tools/list"), {{"Mcp-Session-Id", "mcp_00000000000000000000000000000000"}});
  EXPECT_EQ(unknown.status, 404u);
  EXPECT_EQ(body(unknown)["error"]["code"], -32001);
}

TEST_F(McpRoute, AnotherKeysSessionIsNotFound) {
  auto id = initialize();  // opened by the open caller (no key)
  auto* session = svc.mcp->find(id, "").get();
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(session->user_id(), "local");
  EXPECT_EQ(svc.mcp->find(id, "key_other"), nullptr);
}

TEST_F(McpRoute, TheUserComesFromTheQuery) {
  auto r = make_request("POST", "/mcp?userId=bob");
  r.headers = {{"Content-Type", "application/json"}};
  r.body = rpc_request(0, "initialize").dump();
  auto answer = run_dispatch(routes, svc, r);
  ASSERT_EQ(answer.status, 200u) << answer.body;
  auto session = svc.mcp->find(std::string(*answer.header("Mcp-Session-Id")), "");
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(session->user_id(), "bob");
}

TEST_F(McpRoute, AForeignOriginIsRefused) {
  auto evil = post(rpc_request(0, "initialize"), {{"Origin", "http://evil.example.com"}});
  EXPECT_EQ(evil.status, 403u);
  EXPECT_EQ(body(evil)["error"]["code"], -32000);
  EXPECT_EQ(svc.mcp->session_count(), 0u);
  svc.sources = request_sources({.loopback_server = true, .mcp_allowed_origins = {"https://app.example.com"}});
  svc.sources.set_port(3000);
  auto local = post(rpc_request(0, "initialize"), {{"Origin", "http://localhost:3000"}});
  EXPECT_EQ(local.status, 200u) << local.body;
  // Another port of a loopback origin is another site (another local server's page).
  auto other_port = post(rpc_request(0, "initialize"), {{"Origin", "http://localhost:8080"}});
  EXPECT_EQ(other_port.status, 403u) << other_port.body;
  auto listed = post(rpc_request(0, "initialize"), {{"Origin", "https://app.example.com"}});
  EXPECT_EQ(listed.status, 200u) << listed.body;
}

TEST_F(McpRoute, AnUnsupportedProtocolVersionHeaderIs400) {
  auto id = initialize();
  auto r = post(rpc_request(1, "ping"), {{"Mcp-Session-Id", id}, {"MCP-Protocol-Version", "1999-01-01"}});
  EXPECT_EQ(r.status, 400u);
  // Any version we speak is fine, not only the one agreed (clients differ).
  auto older = post(rpc_request(2, "ping"), {{"Mcp-Session-Id", id}, {"MCP-Protocol-Version", "2025-03-26"}});
  EXPECT_EQ(older.status, 200u) << older.body;
}

TEST_F(McpRoute, MalformedBodiesGetJsonRpcErrors) {
  auto r = make_request("POST", "/mcp");
  r.headers = {{"Content-Type", "application/json"}};
  r.body = "{not json";
  auto parse = run_dispatch(routes, svc, r);
  EXPECT_EQ(parse.status, 400u);
  EXPECT_EQ(body(parse)["error"]["code"], -32700);
  auto batch = post(json::array({rpc_request(0, "initialize")}));
  EXPECT_EQ(batch.status, 400u);
  EXPECT_EQ(body(batch)["error"]["code"], -32600);
  r.headers = {{"Content-Type", "text/plain"}};
  r.body = rpc_request(0, "initialize").dump();
  EXPECT_EQ(run_dispatch(routes, svc, r).status, 415u);
}

TEST_F(McpRoute, GetWithoutLastEventIdIs405WithAllow) {
  auto r = run_dispatch(routes, svc, make_request("GET", "/mcp"));
  EXPECT_EQ(r.status, 405u);
  EXPECT_EQ(r.header("Allow"), "POST, DELETE");
}

TEST_F(McpRoute, GetWithLastEventIdResumesThatStreamAfterTheEvent) {
  auto id = initialize();
  auto session = svc.mcp->find(id, "");
  ASSERT_NE(session, nullptr);
  auto stream = session->streams().open();  // as a POST answered over SSE opens it
  stream->push(rpc_request(-1, "first"));
  stream->push(rpc_request(-1, "second"));
  stream->finish();
  auto r = make_request("GET", "/mcp");
  r.headers = {{"Mcp-Session-Id", id}, {"Accept", "text/event-stream"}, {"Last-Event-ID", "1-1"}};
  auto resumed = run_dispatch(routes, svc, r);
  ASSERT_EQ(resumed.status, 200u) << resumed.body;
  EXPECT_EQ(resumed.header("Content-Type"), "text/event-stream");
  ASSERT_NE(resumed.stream, nullptr);
  std::string text;
  while (auto piece = harness::testing::run_until_done(io, resumed.stream->next())) text += *piece;
  EXPECT_EQ(text.find("first"), std::string::npos) << text;  // seen before the drop: not replayed
  EXPECT_NE(text.find("id: 1-2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("second"), std::string::npos) << text;
}

TEST_F(McpRoute, GetWithLastEventIdChecksTheIdTheSessionAndAccept) {
  auto id = initialize();
  auto get = [&](header_list headers) {
    auto r = make_request("GET", "/mcp");
    r.headers = std::move(headers);
    return run_dispatch(routes, svc, r);
  };
  const std::pair<std::string, std::string> sse{"Accept", "text/event-stream"};
  EXPECT_EQ(get({{"Mcp-Session-Id", id}, {"Last-Event-ID", "1-1"}}).status, 406u);
  EXPECT_EQ(get({sse, {"Last-Event-ID", "1-1"}}).status, 400u);  // no session
  EXPECT_EQ(get({sse, {"Mcp-Session-Id", "mcp_00000000000000000000000000000000"}, {"Last-Event-ID", "1-1"}}).status,
            404u);
  auto malformed = get({sse, {"Mcp-Session-Id", id}, {"Last-Event-ID", "abc"}});
  EXPECT_EQ(malformed.status, 400u);
  EXPECT_NE(body(malformed)["error"]["message"].get<std::string>().find("Last-Event-ID"), std::string::npos);
  auto unknown = get({sse, {"Mcp-Session-Id", id}, {"Last-Event-ID", "7-1"}});
  EXPECT_EQ(unknown.status, 404u);
  EXPECT_NE(body(unknown)["error"]["message"].get<std::string>().find("Send the request again"), std::string::npos);
}

TEST_F(McpRoute, DeleteEndsTheSession) {
  auto id = initialize();
  auto r = make_request("DELETE", "/mcp");
  r.headers = {{"Mcp-Session-Id", id}};
  EXPECT_EQ(run_dispatch(routes, svc, r).status, 200u);
  EXPECT_EQ(svc.mcp->session_count(), 0u);
  EXPECT_EQ(run_dispatch(routes, svc, r).status, 404u);
  auto later = post(rpc_request(1, "ping"), {{"Mcp-Session-Id", id}});
  EXPECT_EQ(later.status, 404u);
}

// The 2026-07-28 era on the same endpoint: a request whose _meta names the
// version is stateless, checked against its headers.
json modern_request(int id, std::string method, json params = json::object()) {
  params["_meta"] = {{mcp_server::modern::version_key, "2026-07-28"},
                     {mcp_server::modern::capabilities_key, json::object()}};
  return rpc_request(id, std::move(method), std::move(params));
}

header_list modern_headers(std::string method, std::optional<std::string> name = std::nullopt) {
  header_list headers{{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", std::move(method)}};
  if (name) headers.emplace_back("Mcp-Name", std::move(*name));
  return headers;
}

TEST_F(McpRoute, ANewEraRequestIsAnsweredWithoutASession) {
  auto discover = post(modern_request(1, "server/discover"), modern_headers("server/discover"));
  ASSERT_EQ(discover.status, 200u) << discover.body;
  EXPECT_EQ(body(discover)["result"]["supportedVersions"][0], "2026-07-28");
  EXPECT_FALSE(discover.header("Mcp-Session-Id").has_value());
  auto code = modern_request(2, "tools/call", {{"name", "execute_code"}, {"arguments", {{"code", "return 1"}}}});
  auto run = post(code, modern_headers("tools/call", "execute_code"));
  ASSERT_EQ(run.status, 200u) << run.body;
  EXPECT_EQ(body(run)["result"]["resultType"], "complete");
  EXPECT_EQ(svc.mcp->session_count(), 0u);
  auto note =
      post({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}, {"params", modern_request(0, "x")["params"]}},
           modern_headers("notifications/initialized"));
  EXPECT_EQ(note.status, 202u) << note.body;
}

// The block's span hangs below the trace context of the call's _meta, which
// over HTTP is the request's own span when the client put none there.
TEST_F(McpRoute, ACallsBlockJoinsTheTraceOfItsMetaOrElseOfItsHttpRequest) {
  const telemetry::span_parent http_span(nullptr, {"4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", true, ""});
  auto code = modern_request(2, "tools/call", {{"name", "execute_code"}, {"arguments", {{"code", "return 1"}}}});
  ASSERT_EQ(post(code, modern_headers("tools/call", "execute_code"), http_span).status, 200u);
  ASSERT_EQ(execution->requests.size(), 1u);
  EXPECT_EQ(execution->requests[0].trace.context().trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(execution->requests[0].trace.context().span_id, "00f067aa0ba902b7");

  code["params"]["_meta"]["traceparent"] = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  ASSERT_EQ(post(code, modern_headers("tools/call", "execute_code"), http_span).status, 200u);
  ASSERT_EQ(execution->requests.size(), 2u);
  EXPECT_EQ(execution->requests[1].trace.context().trace_id, "0af7651916cd43dd8448eb211c80319c");
  EXPECT_EQ(execution->requests[1].trace.context().span_id, "b7ad6b7169203331");

  // A 2025-era session's call the same way.
  auto id = initialize();
  auto legacy = rpc_request(3, "tools/call", {{"name", "execute_code"}, {"arguments", {{"code", "return 1"}}}});
  ASSERT_EQ(post(legacy, {{"Mcp-Session-Id", id}, {"MCP-Protocol-Version", "2025-11-25"}}, http_span).status, 200u);
  ASSERT_EQ(execution->requests.size(), 3u);
  EXPECT_EQ(execution->requests[2].trace.context().trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
}

TEST_F(McpRoute, NewEraHeadersMustAgreeWithTheBody) {
  auto code = modern_request(2, "tools/call", {{"name", "execute_code"}, {"arguments", {{"code", "return 1"}}}});
  auto no_name = post(code, modern_headers("tools/call"));
  EXPECT_EQ(no_name.status, 400u);
  EXPECT_EQ(body(no_name)["error"]["code"], mcp_server::modern::header_mismatch);
  auto wrong_method = post(code, modern_headers("tools/list", "execute_code"));
  EXPECT_EQ(body(wrong_method)["error"]["code"], mcp_server::modern::header_mismatch);
  auto no_version = post(modern_request(1, "tools/list"), {{"Mcp-Method", "tools/list"}});
  EXPECT_EQ(no_version.status, 400u);
  EXPECT_EQ(body(no_version)["error"]["data"]["mismatch"]["header"], "MCP-Protocol-Version");
  EXPECT_TRUE(execution->requests.empty());
}

TEST_F(McpRoute, NewEraVersionsAndEnvelopesAreChecked) {
  auto future = modern_request(1, "tools/list");
  future["params"]["_meta"][mcp_server::modern::version_key] = "2099-01-01";
  auto r = post(future, {{"MCP-Protocol-Version", "2099-01-01"}, {"Mcp-Method", "tools/list"}});
  EXPECT_EQ(r.status, 400u);
  EXPECT_EQ(body(r)["error"]["code"], mcp_server::modern::unsupported_version);
  EXPECT_EQ(body(r)["error"]["data"]["requested"], "2099-01-01");
  // A new-era header on a body without the envelope.
  auto bare = post(rpc_request(2, "tools/list"), modern_headers("tools/list"));
  EXPECT_EQ(bare.status, 400u);
  EXPECT_EQ(body(bare)["error"]["code"], -32602);
}

TEST_F(McpRoute, NewEraUnknownMethodsAre404) {
  auto r = post(modern_request(1, "prompts/list"), modern_headers("prompts/list"));
  EXPECT_EQ(r.status, 404u) << r.body;
  EXPECT_EQ(body(r)["error"]["code"], -32601);
}

// A 2026-07-28 handle does not open a 2025 session, nor a 2025 session id a handle.
TEST_F(McpRoute, HandlesAndSessionIdsDoNotCross) {
  auto open = modern_request(1, "tools/call", {{"name", "open_session"}, {"arguments", json::object()}});
  auto opened = post(open, modern_headers("tools/call", "open_session"));
  const std::string handle = body(opened)["result"]["structuredContent"]["session"];
  auto as_session = post(rpc_request(2, "tools/list"), {{"Mcp-Session-Id", handle}});
  EXPECT_EQ(as_session.status, 404u) << as_session.body;
  auto deleted = make_request("DELETE", "/mcp");
  deleted.headers = {{"Mcp-Session-Id", handle}};
  EXPECT_EQ(harness::testing::run_until_done(io, dispatch(routes, svc, deleted)).status, 404u);
  const auto id = initialize();
  auto code = modern_request(3, "tools/call",
                             {{"name", "execute_code"}, {"arguments", {{"code", "return 1"}, {"session", id}}}});
  auto as_handle = post(code, modern_headers("tools/call", "execute_code"));
  EXPECT_TRUE(body(as_handle)["result"]["isError"].get<bool>()) << as_handle.body;
  EXPECT_TRUE(execution->requests.empty());
  EXPECT_EQ(svc.mcp->session_count(), 2u);
}

TEST_F(McpRoute, NewEraGetAndDeleteAre405) {
  for (const char* method : {"GET", "DELETE"}) {
    auto r = make_request(method, "/mcp");
    r.headers = {{"MCP-Protocol-Version", "2026-07-28"}};
    auto answer = run_dispatch(routes, svc, r);
    EXPECT_EQ(answer.status, 405u) << method;
    EXPECT_EQ(answer.header("Allow"), "POST") << method;
  }
}

TEST_F(McpRoute, AHandleOfAnotherReplicaIs421) {
  harness::testing::run_until_done(io, svc.mcp->shutdown());
  svc.mcp = mcp_server::create_mcp_face(io.get_executor(), core::real_clock(), {.tools = tools, .execution = execution},
                                        {.replica = "replica-a"});
  auto code = modern_request(1, "tools/call",
                             {{"name", "execute_code"},
                              {"arguments", {{"code", "1"}, {"session", "mcp_00000000000000000000000000000000.b"}}}});
  auto r = post(code, modern_headers("tools/call", "execute_code"));
  EXPECT_EQ(r.status, 421u) << r.body;
  EXPECT_EQ(body(r)["error"]["data"]["replica"], "b");
}

TEST_F(McpRoute, WithoutTheFaceItIs503) {
  auto face = std::exchange(svc.mcp, nullptr);
  auto r = post(rpc_request(0, "initialize"));
  EXPECT_EQ(r.status, 503u);
  svc.mcp = face;
}

}  // namespace
}  // namespace harness::http
