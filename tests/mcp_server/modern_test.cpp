// The 2026-07-28 era of the face against the fakes: the envelope and header
// checks, server/discover, lists with caching hints, one-shot execute_code,
// session handles bound to their user and key, approvals refused with a
// reason. The official SDK 2.4.0 client against the real server is in
// mcp_face_integration_test.cpp.
#include <gtest/gtest.h>

#include "mcp_server/modern_fixture.hpp"
#include "support/captured_log.hpp"

namespace harness::mcp_server {
namespace {

using namespace testing;

TEST(McpModernEnvelope, AMessageIsOfTheNewEraWhenItsMetaNamesAVersion) {
  EXPECT_EQ(modern::claimed_version(request(1, "tools/list")), "2026-07-28");
  EXPECT_EQ(modern::claimed_version(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}}), std::nullopt);
  EXPECT_EQ(modern::claimed_version(json{{"params", {{"_meta", {{"progressToken", 1}}}}}}), std::nullopt);
  EXPECT_EQ(modern::claimed_version(json{{"params", {{"_meta", {{modern::version_key, 7}}}}}}), "");
  EXPECT_EQ(modern::claimed_version(json::array()), std::nullopt);
}

TEST(McpModernEnvelope, AnUnsupportedVersionIsRefusedWithEveryVersionSpokenHere) {
  auto message = request(3, "tools/list");
  message["params"]["_meta"][modern::version_key] = "2099-01-01";
  auto error = modern::check_envelope(message);
  ASSERT_TRUE(error);
  EXPECT_EQ((*error)["id"], 3);
  EXPECT_EQ((*error)["error"]["code"], modern::unsupported_version);
  EXPECT_EQ((*error)["error"]["data"]["requested"], "2099-01-01");
  const auto& supported = (*error)["error"]["data"]["supported"];
  EXPECT_EQ(supported[0], "2026-07-28");
  EXPECT_NE(std::find(supported.begin(), supported.end(), "2025-11-25"), supported.end()) << supported.dump();
}

TEST(McpModernEnvelope, TheClientsCapabilitiesAreRequired) {
  auto message = request(4, "tools/list");
  message["params"]["_meta"].erase(modern::capabilities_key);
  auto error = modern::check_envelope(message);
  ASSERT_TRUE(error);
  EXPECT_EQ((*error)["error"]["code"], -32602);
  EXPECT_EQ((*error)["error"]["data"]["envelope"]["key"], modern::capabilities_key);
  EXPECT_FALSE(modern::check_envelope(request(5, "tools/list")));
  // No version at all (a new-era header, a body without the envelope).
  auto bare = json{{"jsonrpc", "2.0"}, {"id", 6}, {"method", "tools/list"}};
  EXPECT_EQ((*modern::check_envelope(bare))["error"]["code"], -32602);
}

TEST(McpModernEnvelope, HeadersMustSayWhatTheBodySays) {
  auto message = call(1, "execute_code", {{"code", "return 1"}, {"session", "mcp_abc"}});
  modern::request_headers headers{"2026-07-28", "tools/call", "execute_code", std::nullopt};
  EXPECT_FALSE(modern::check_headers(message, headers));
  headers.session = "mcp_abc";
  EXPECT_FALSE(modern::check_headers(message, headers));
  headers.name = "=?base64?ZXhlY3V0ZV9jb2Rl?=";  // "execute_code", wrapped
  EXPECT_FALSE(modern::check_headers(message, headers));

  auto refused = [&](modern::request_headers h) {
    auto error = modern::check_headers(message, h);
    return error ? (*error)["error"]["code"].get<int>() : 0;
  };
  EXPECT_EQ(refused({std::nullopt, "tools/call", "execute_code", std::nullopt}), modern::header_mismatch);
  EXPECT_EQ(refused({"2025-11-25", "tools/call", "execute_code", std::nullopt}), modern::header_mismatch);
  EXPECT_EQ(refused({"2026-07-28", "tools/list", "execute_code", std::nullopt}), modern::header_mismatch);
  EXPECT_EQ(refused({"2026-07-28", "tools/call", std::nullopt, std::nullopt}), modern::header_mismatch);
  EXPECT_EQ(refused({"2026-07-28", "tools/call", "search_tools", std::nullopt}), modern::header_mismatch);
  EXPECT_EQ(refused({"2026-07-28", "tools/call", "=?base64?!!?=", std::nullopt}), modern::header_mismatch);
  EXPECT_EQ(refused({"2026-07-28", "tools/call", "execute_code", "mcp_other"}), modern::header_mismatch);
  auto error = modern::check_headers(message, {"2026-07-28", "tools/call", "search_tools", std::nullopt});
  EXPECT_EQ((*error)["error"]["data"]["mismatch"]["header"], "Mcp-Name");
  EXPECT_EQ((*error)["error"]["data"]["mismatch"]["body"], "execute_code");
  // resources/read names its uri; other methods need no Mcp-Name.
  auto read = request(2, "resources/read", {{"uri", "skill://a/SKILL.md"}});
  EXPECT_FALSE(modern::check_headers(read, {"2026-07-28", "resources/read", "skill://a/SKILL.md", std::nullopt}));
  EXPECT_TRUE(modern::check_headers(read, {"2026-07-28", "resources/read", std::nullopt, std::nullopt}));
  EXPECT_FALSE(modern::check_headers(request(3, "tools/list"), {"2026-07-28", "tools/list", std::nullopt, {}}));
  // Hostile bodies are refused, not thrown on.
  auto odd = request(4, "tools/call", {{"name", 7}, {"arguments", "not an object"}});
  odd["method"] = 5;
  auto refusal = modern::check_headers(odd, {"2026-07-28", "tools/call", "x", "y"});
  ASSERT_TRUE(refusal);
  EXPECT_EQ((*refusal)["error"]["code"], modern::header_mismatch);
  odd["method"] = "tools/call";
  EXPECT_TRUE(modern::check_headers(odd, {"2026-07-28", "tools/call", "x", "y"}));
}

TEST_F(McpModern, DiscoverDescribesTheServerWithCachingHints) {
  auto r = result_of(request(1, "server/discover"));
  EXPECT_EQ(r["resultType"], "complete");
  EXPECT_EQ(r["supportedVersions"], json::array({"2026-07-28"}));
  EXPECT_TRUE(r["capabilities"].contains("tools"));
  EXPECT_NE(r["instructions"].get<std::string>().find("open_session"), std::string::npos);
  EXPECT_EQ(r["_meta"][modern::server_info_key]["name"], "mcp-harness");
  EXPECT_EQ(r["cacheScope"], "public");
  EXPECT_GT(r["ttlMs"].get<long long>(), 0);
}

TEST_F(McpModern, ToolsListAddsTheSessionToolsAndMirrorsTheHandleIntoAHeader) {
  auto r = result_of(request(1, "tools/list"));
  std::vector<std::string> names;
  for (const auto& tool : r["tools"]) names.push_back(tool["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"search_tools", "describe_tools", "execute_code", "open_session",
                                             "close_session"}));
  const auto& session = r["tools"][2]["inputSchema"]["properties"]["session"];
  EXPECT_EQ(session["x-mcp-header"], "Session");
  EXPECT_EQ(r["resultType"], "complete");
  EXPECT_EQ(r["cacheScope"], "public");
  EXPECT_TRUE(r.contains("ttlMs"));
}

TEST_F(McpModern, WithoutAHandleCodeRunsInAFreshSandbox) {
  execution->answer.ended = true;  // as the execution service says of every one-shot block
  auto r = result_of(call(1, "execute_code", {{"code", "return 1 + 1"}}));
  EXPECT_FALSE(r["isError"].get<bool>()) << r.dump();
  EXPECT_FALSE(r["structuredContent"].contains("note")) << r.dump();  // nothing was lost
  EXPECT_EQ(r["structuredContent"]["result"]["sum"], 2);
  EXPECT_EQ(r["resultType"], "complete");
  ASSERT_EQ(execution->requests.size(), 1u);
  EXPECT_FALSE(execution->requests[0].session_id.has_value());  // one-shot: nothing kept
  EXPECT_EQ(execution->requests[0].user_id, "alice");
  EXPECT_EQ(face->session_count(), 0u);
}

TEST_F(McpModern, AHandleKeepsItsSandboxSessionUntilClosed) {
  const auto handle = open_session();
  ASSERT_FALSE(handle.empty());
  EXPECT_EQ(face->session_count(), 1u);
  for (int i = 0; i < 2; ++i) {
    auto r = result_of(call(2 + i, "execute_code", {{"code", "x = 1"}, {"session", handle}}));
    EXPECT_FALSE(r["isError"].get<bool>()) << r.dump();
  }
  ASSERT_EQ(execution->requests.size(), 2u);
  EXPECT_EQ(execution->requests[0].session_id, handle);
  EXPECT_EQ(execution->requests[1].session_id, handle);
  auto closed = result_of(call(4, "close_session", {{"session", handle}}));
  EXPECT_TRUE(closed["structuredContent"]["closed"].get<bool>());
  EXPECT_EQ(execution->ended, std::vector<std::string>{"alice/" + handle});
  EXPECT_EQ(face->session_count(), 0u);
  auto after = result_of(call(5, "execute_code", {{"code", "x"}, {"session", handle}}));
  EXPECT_TRUE(after["isError"].get<bool>());
  EXPECT_NE(after["content"][0]["text"].get<std::string>().find("unknown session"), std::string::npos);
}

TEST_F(McpModern, AnotherUsersOrKeysHandleIsAsUnknownAsAMadeUpOne) {
  const auto handle = open_session();
  auto text_for = [&](mcp_caller caller, std::string session) {
    auto r = result_of(call(2, "execute_code", {{"code", "1"}, {"session", std::move(session)}}), std::move(caller));
    EXPECT_TRUE(r["isError"].get<bool>()) << r.dump();
    return r["content"][0]["text"].get<std::string>();
  };
  const auto made_up = text_for({"alice", "key_1", false}, "mcp_00000000000000000000000000000000");
  const auto other_user = text_for({"bob", "key_1", false}, handle);
  const auto other_key = text_for({"alice", "key_2", false}, handle);
  // The same words for all three, so a handle's existence does not show.
  for (const auto& text : {made_up, other_user, other_key}) {
    EXPECT_TRUE(text.starts_with("unknown session mcp_")) << text;
    EXPECT_NE(text.find("was never yours"), std::string::npos) << text;
  }
  EXPECT_TRUE(execution->requests.empty());  // none of them ran
  auto close = result_of(call(3, "close_session", {{"session", handle}}), {"bob", "key_1", false});
  EXPECT_TRUE(close["isError"].get<bool>());
  EXPECT_EQ(face->session_count(), 1u);  // still alice's
}

TEST_F(McpModern, AHandleOfAnotherReplicaNamesIt) {
  run_until_done(io, face->shutdown());
  config.replica = "replica-a";
  face = create_mcp_face(io.get_executor(), core::real_clock(), {.tools = tools, .execution = execution}, config);
  const auto handle = open_session();
  EXPECT_TRUE(handle.ends_with(".replica-a")) << handle;
  const auto theirs = handle.substr(0, handle.size() - 1) + "b";
  auto answer = send(call(2, "execute_code", {{"code", "1"}, {"session", theirs}}));
  ASSERT_TRUE(answer && answer->contains("error")) << answer->dump();
  EXPECT_EQ((*answer)["error"]["data"]["replica"], "replica-b");
}

TEST_F(McpModern, SessionsCountAgainstTheSameCaps) {
  run_until_done(io, face->shutdown());
  config.max_sessions_per_user = 1;
  face = create_mcp_face(io.get_executor(), core::real_clock(), {.tools = tools, .execution = execution}, config);
  open_session();
  auto r = result_of(call(2, "open_session", json::object()));
  EXPECT_TRUE(r["isError"].get<bool>());
  EXPECT_NE(r["content"][0]["text"].get<std::string>().find("MCP_MAX_SESSIONS_PER_USER"), std::string::npos);
}

// Multi round-trip requests: an approval the block waits for is asked
// through input_required, and the client's retry answers it.
TEST_F(McpModern, AnApprovalIsAskedThroughInputRequiredAndTheRetryAnswersIt) {
  execution->hold = true;
  auto first_call = call(1, "execute_code", {{"code", "await callMCPTool('fs__write_file', {})"}});
  first_call["params"]["_meta"][modern::capabilities_key] = {{"elicitation", {{"form", json::object()}}}};
  std::optional<json> first;
  start(first_call, first);
  ASSERT_TRUE(poll_until([&] { return execution->requests.size() == 1; }));
  auto approver = execution->requests[0].approver;
  ASSERT_NE(approver, nullptr);
  std::optional<policy::approval_answer> decided;
  auto asking = [](std::shared_ptr<policy::approver> a,
                   std::optional<policy::approval_answer>& out) -> asio::awaitable<void> {
    policy::approval_request request{"fs__write_file", {{"path", "a.txt"}}, "await callMCPTool(...)", "rule 1"};
    out = co_await a->ask(std::move(request));  // a named request: GCC 12 and temporaries in co_await
  };
  asio::co_spawn(io, asking(approver, decided), asio::detached);
  ASSERT_TRUE(poll_until([&] { return first.has_value(); }));
  const json& asked = (*first)["result"];
  ASSERT_EQ(asked["resultType"], "input_required") << first->dump();
  ASSERT_EQ(asked["inputRequests"].size(), 1u);
  const auto key = asked["inputRequests"].items().begin().key();
  const auto& request = asked["inputRequests"][key];
  EXPECT_EQ(request["method"], "elicitation/create");
  EXPECT_EQ(request["params"]["mode"], "form");
  EXPECT_NE(request["params"]["message"].get<std::string>().find("fs__write_file"), std::string::npos);
  const std::string state = asked["requestState"];
  EXPECT_TRUE(state.starts_with("mrtr_")) << state;

  // Another user's retry with the same state: unknown, and nothing answered.
  auto theirs = call(2, "execute_code", {{"code", "x"}});
  theirs["params"]["requestState"] = state;
  theirs["params"]["inputResponses"] = {{key, {{"action", "accept"}, {"content", json::object()}}}};
  auto refused = send(theirs, {"bob", "key_1", false});
  ASSERT_TRUE(refused && refused->contains("error")) << refused->dump();
  EXPECT_NE((*refused)["error"]["message"].get<std::string>().find("unknown requestState"), std::string::npos);
  EXPECT_FALSE(decided.has_value());

  auto retry = first_call;
  retry["id"] = 3;
  retry["params"]["requestState"] = state;
  retry["params"]["inputResponses"] = {{key, {{"action", "accept"}, {"content", {{"scope", "call"}}}}}};
  std::optional<json> second;
  start(retry, second);
  ASSERT_TRUE(poll_until([&] { return decided.has_value(); }));
  EXPECT_EQ(decided->outcome, policy::approval_outcome::approved);
  EXPECT_FALSE(second.has_value());  // the block still runs
  execution->hold = false;
  execution->release.set();
  ASSERT_TRUE(poll_until([&] { return second.has_value(); }));
  EXPECT_EQ((*second)["id"], 3);
  EXPECT_EQ((*second)["result"]["resultType"], "complete") << second->dump();
  EXPECT_EQ((*second)["result"]["structuredContent"]["result"]["sum"], 2);
  // The run is over: its state is unknown now.
  auto again = send(retry);
  EXPECT_NE((*again)["error"]["message"].get<std::string>().find("unknown requestState"), std::string::npos);
}

TEST_F(McpModern, AClientWithoutElicitationIsNotAskedAndTheCallIsDeniedSayingWhy) {
  execution->hold = true;
  std::optional<json> answer;
  start(call(1, "execute_code", {{"code", "1"}}), answer);  // capabilities {}: no elicitation
  ASSERT_TRUE(poll_until([&] { return execution->requests.size() == 1; }));
  std::optional<policy::approval_answer> decided;
  auto asking = [](std::shared_ptr<policy::approver> a,
                   std::optional<policy::approval_answer>& out) -> asio::awaitable<void> {
    policy::approval_request request{"fs__write_file", json::object(), "", "rule 1"};
    out = co_await a->ask(std::move(request));
  };
  asio::co_spawn(io, asking(execution->requests[0].approver, decided), asio::detached);
  ASSERT_TRUE(poll_until([&] { return decided.has_value(); }));
  EXPECT_EQ(decided->outcome, policy::approval_outcome::denied);
  EXPECT_NE(decided->reason.find("no elicitation capability"), std::string::npos) << decided->reason;
  execution->hold = false;
  execution->release.set();
  ASSERT_TRUE(poll_until([&] { return answer.has_value(); }));
  EXPECT_EQ((*answer)["result"]["resultType"], "complete");
}

// Over stdio a client cancels a request with notifications/cancelled (the
// face gets it with the stdio client as caller); another caller's does nothing.
TEST_F(McpModern, NotificationsCancelledStopsTheCallersBlock) {
  execution->hold = true;
  std::optional<json> answer;
  start(call(7, "execute_code", {{"code", "await new Promise(() => {})"}}), answer);
  ASSERT_TRUE(poll_until([&] { return execution->requests.size() == 1; }));
  auto cancel = json{
      {"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 7}, {"_meta", envelope()}}}};
  EXPECT_FALSE(send(cancel, {"bob", "key_1", false}));
  auto other_id = cancel;
  other_id["params"]["requestId"] = 8;
  EXPECT_FALSE(send(other_id));
  poll_until([] { return false; });
  EXPECT_FALSE(execution->killed);
  EXPECT_FALSE(answer.has_value());
  EXPECT_FALSE(send(cancel));
  ASSERT_TRUE(poll_until([&] { return answer.has_value(); }));
  EXPECT_TRUE(execution->killed);  // the one-shot block's sandbox was stopped
}

// Over HTTP the client cancels by closing its connection: the route fires
// the request's abandonment, and the block stops. Once the call is answered,
// leaving stops nothing.
TEST_F(McpModern, AClientThatLeavesStopsItsBlock) {
  execution->hold = true;
  auto abandoned = std::make_shared<core::abandonment>();
  std::optional<json> answer;
  start(call(7, "execute_code", {{"code", "await new Promise(() => {})"}}), answer, {"alice", "key_1", false},
        abandoned);
  ASSERT_TRUE(poll_until([&] { return execution->requests.size() == 1; }));
  poll_until([] { return false; });
  EXPECT_FALSE(execution->killed);
  abandoned->fire();
  ASSERT_TRUE(poll_until([&] { return answer.has_value(); }));
  EXPECT_TRUE(execution->killed);

  execution->hold = false;
  execution->killed = false;
  auto answered = std::make_shared<core::abandonment>();
  std::optional<json> second;
  start(call(8, "execute_code", {{"code", "return 1"}}), second, {"alice", "key_1", false}, answered);
  ASSERT_TRUE(poll_until([&] { return second.has_value(); }));
  answered->fire();
  poll_until([] { return false; });
  EXPECT_FALSE(execution->killed);
  EXPECT_FALSE(second->contains("error")) << second->dump();
}

// W3C trace context in _meta (the specification's unprefixed traceparent
// and tracestate) is taken: the call's log names the trace; a malformed one
// is ignored, and neither changes the answer.
TEST_F(McpModern, TraceContextInMetaIsTakenAndAMalformedOneIgnored) {
  harness::testing::captured_log log;
  auto traced = call(1, "execute_code", {{"code", "return 1"}});
  traced["params"]["_meta"]["traceparent"] = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  traced["params"]["_meta"]["tracestate"] = "vendor=1";
  auto answer = send(traced);
  ASSERT_TRUE(answer);
  EXPECT_FALSE(answer->contains("error")) << answer->dump();
  EXPECT_TRUE(log.contains("joins trace 4bf92f3577b34da6a3ce929d0e0e4736 (parent span 00f067aa0ba902b7)"));

  auto malformed = call(2, "execute_code", {{"code", "return 1"}});
  malformed["params"]["_meta"]["traceparent"] = "00-not-a-trace\nforged log line";
  malformed["params"]["_meta"]["tracestate"] = json::array();
  auto second = send(malformed);
  ASSERT_TRUE(second);
  EXPECT_FALSE(second->contains("error")) << second->dump();
  EXPECT_FALSE(log.contains("forged"));
}

TEST_F(McpModern, UnknownMethodsAndNotificationsAndResponses) {
  auto unknown = send(request(1, "initialize"));
  ASSERT_TRUE(unknown);
  EXPECT_EQ((*unknown)["error"]["code"], -32601);
  EXPECT_FALSE(
      send(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}, {"params", {{"_meta", envelope()}}}}));
  auto response = send(json{{"jsonrpc", "2.0"}, {"id", 9}, {"result", json::object()}});
  ASSERT_TRUE(response);
  EXPECT_EQ((*response)["error"]["code"], -32600);
  auto ping = result_of(request(2, "ping"));
  EXPECT_EQ(ping["resultType"], "complete");
}

TEST_F(McpModern, SearchAndDescribeActForTheCaller) {
  auto r = result_of(call(1, "search_tools", {{"query", "read"}}));
  ASSERT_EQ(r["structuredContent"]["tools"].size(), 1u) << r.dump();
  EXPECT_EQ(r["structuredContent"]["tools"][0]["name"], "fs__read_file");
  auto d = result_of(call(2, "describe_tools", {{"names", {"fs__read_file"}}}));
  EXPECT_EQ(d["structuredContent"]["declarations"].size(), 1u);
}

}  // namespace
}  // namespace harness::mcp_server
