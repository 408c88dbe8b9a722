// One MCP session of code mode against a fake tool catalogue and a fake
// execution service: the protocol (initialize, ping, tools/list, errors),
// the three tools, progress and cancellation. The real transports, sandbox
// and upstream servers are in the integration tests.
#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "harness/execution/errors.hpp"
#include "harness/mcp_server/mcp_face.hpp"
#include "mcp_server/fakes.hpp"
#include "support/run_sync.hpp"

namespace harness::mcp_server {
namespace {

namespace asio = boost::asio;
using json = nlohmann::json;
using fakes::fake_execution;
using fakes::fake_tools;
using fakes::rpc_request;
using harness::testing::run_until_done;

json call(int id, const char* tool, json args, json meta = nullptr) {
  json params{{"name", tool}, {"arguments", std::move(args)}};
  if (!meta.is_null()) params["_meta"] = std::move(meta);
  return rpc_request(id, "tools/call", std::move(params));
}

class McpSession : public ::testing::Test {
 protected:
  void SetUp() override {
    config.progress_interval = std::chrono::milliseconds(5);
    face = create_mcp_face(io.get_executor(), core::real_clock(), {.tools = tools, .execution = execution}, config);
    session = face->open("alice", "key_1", false).session;
    ASSERT_NE(session, nullptr);
  }
  void TearDown() override { run_until_done(io, face->shutdown()); }

  std::optional<json> send(json message, notify_fn notify = nullptr) {
    return run_until_done(io, session->handle(std::move(message), std::move(notify)));
  }
  json result_of(json message) {
    auto answer = send(std::move(message));
    EXPECT_TRUE(answer.has_value());
    if (!answer) return nullptr;
    EXPECT_FALSE(answer->contains("error")) << answer->dump();
    return (*answer)["result"];
  }

  asio::io_context io;
  face_config config;
  std::shared_ptr<fake_tools> tools = std::make_shared<fake_tools>();
  std::shared_ptr<fake_execution> execution = std::make_shared<fake_execution>(io);
  std::shared_ptr<mcp_face> face;
  std::shared_ptr<mcp_session> session;
};

TEST_F(McpSession, InitializeAgreesOnTheClientsVersionWhenItIsOneOfOurs) {
  auto r =
      result_of(rpc_request(0, "initialize", {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()}}));
  EXPECT_EQ(r["protocolVersion"], "2025-06-18");
  EXPECT_EQ(session->protocol_version(), "2025-06-18");
  EXPECT_EQ(r["serverInfo"]["name"], "mcp-harness");
  EXPECT_TRUE(r["capabilities"].contains("tools"));
  EXPECT_NE(r["instructions"].get<std::string>().find("callMCPTool"), std::string::npos);
}

TEST_F(McpSession, InitializeOffersOurNewestVersionForAnUnknownOne) {
  auto r = result_of(rpc_request(0, "initialize", {{"protocolVersion", "2099-01-01"}}));
  EXPECT_EQ(r["protocolVersion"], supported_versions().front());
}

TEST_F(McpSession, PingAnswersAnEmptyObject) {
  EXPECT_EQ(result_of(rpc_request(1, "ping")), json::object());
}

TEST_F(McpSession, ToolsListHasTheThreeToolsWithDescriptionsSchemasAndTruthfulAnnotations) {
  auto tools_list = result_of(rpc_request(1, "tools/list"))["tools"];
  ASSERT_EQ(tools_list.size(), 3u);
  std::map<std::string, json> by_name;
  for (const auto& t : tools_list) {
    EXPECT_FALSE(t["description"].get<std::string>().empty()) << t["name"];
    EXPECT_EQ(t["inputSchema"]["type"], "object") << t["name"];
    EXPECT_EQ(t["outputSchema"]["type"], "object") << t["name"];
    by_name[t["name"]] = t;
  }
  EXPECT_TRUE(by_name.at("search_tools")["annotations"]["readOnlyHint"].get<bool>());
  EXPECT_TRUE(by_name.at("describe_tools")["annotations"]["readOnlyHint"].get<bool>());
  const auto& execute = by_name.at("execute_code")["annotations"];
  EXPECT_FALSE(execute["readOnlyHint"].get<bool>());
  EXPECT_TRUE(execute["destructiveHint"].get<bool>());
  EXPECT_TRUE(execute["openWorldHint"].get<bool>());
}

TEST_F(McpSession, UnknownMethodsAndMalformedMessagesGetJsonRpcErrors) {
  auto unknown = send(rpc_request(2, "resources/list"));
  ASSERT_TRUE(unknown);
  EXPECT_EQ((*unknown)["error"]["code"], -32601);
  EXPECT_EQ((*unknown)["id"], 2);
  auto junk = send(json{{"hello", "world"}});
  ASSERT_TRUE(junk);
  EXPECT_EQ((*junk)["error"]["code"], -32600);
  auto bad_params = send(json{{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/list"}, {"params", json::array()}});
  ASSERT_TRUE(bad_params);
  EXPECT_EQ((*bad_params)["error"]["code"], -32602);
  auto unknown_tool = send(call(4, "fs__read_file", json::object()));
  ASSERT_TRUE(unknown_tool);
  EXPECT_EQ((*unknown_tool)["error"]["code"], -32602);
  EXPECT_NE((*unknown_tool)["error"]["message"].get<std::string>().find("callMCPTool"), std::string::npos);
}

TEST_F(McpSession, NotificationsAndClientResponsesGetNoAnswer) {
  EXPECT_FALSE(send(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}));
  EXPECT_FALSE(send(json{{"jsonrpc", "2.0"}, {"id", 9}, {"result", json::object()}}));
}

TEST_F(McpSession, LoggingSetLevelChecksTheLevel) {
  EXPECT_EQ(result_of(rpc_request(1, "logging/setLevel", {{"level", "info"}})), json::object());
  auto bad = send(rpc_request(2, "logging/setLevel", {{"level", "loud"}}));
  ASSERT_TRUE(bad);
  EXPECT_EQ((*bad)["error"]["code"], -32602);
}

TEST_F(McpSession, SearchToolsGivesSignaturesAndRespectsTheLimit) {
  auto r = result_of(call(1, "search_tools", {{"query", ""}, {"limit", 1}}));
  EXPECT_FALSE(r["isError"].get<bool>());
  ASSERT_EQ(r["structuredContent"]["tools"].size(), 1u);
  const auto& first = r["structuredContent"]["tools"][0];
  EXPECT_EQ(first["name"], "fs__read_file");
  EXPECT_NE(first["signature"].get<std::string>().find("path: string"), std::string::npos) << first.dump();
  EXPECT_EQ(first["description"], "Read a file.");
  EXPECT_NE(r["content"][0]["text"].get<std::string>().find("fs__read_file"), std::string::npos);
}

TEST_F(McpSession, BadToolArgumentsAreToolErrorsTheModelCanRead) {
  for (const json& args : {json{{"limit", 0}}, json{{"query", 5}}}) {
    auto r = result_of(call(1, "search_tools", args));
    EXPECT_TRUE(r["isError"].get<bool>()) << args.dump();
  }
  for (const json& args : {json::object(), json{{"names", json::array()}}, json{{"names", {1}}}}) {
    auto r = result_of(call(2, "describe_tools", args));
    EXPECT_TRUE(r["isError"].get<bool>()) << args.dump();
  }
  for (const json& args : {json::object(), json{{"code", ""}}, json{{"code", "1"}, {"reset", "yes"}}}) {
    auto r = result_of(call(3, "execute_code", args));
    EXPECT_TRUE(r["isError"].get<bool>()) << args.dump();
  }
  EXPECT_TRUE(execution->requests.empty());
}

TEST_F(McpSession, DescribeToolsDeclaresKnownToolsAndListsUnknownOnes) {
  auto r = result_of(call(1, "describe_tools", {{"names", {"fs__read_file", "nope__tool"}}}));
  const auto& s = r["structuredContent"];
  ASSERT_EQ(s["declarations"].size(), 1u);
  const std::string declaration = s["declarations"][0]["declaration"];
  EXPECT_NE(declaration.find("fs__read_file"), std::string::npos);
  EXPECT_NE(declaration.find("content?: string"), std::string::npos) << declaration;  // from the output schema
  EXPECT_EQ(s["unknown"], json::array({"nope__tool"}));
}

TEST_F(McpSession, ExecuteCodeRunsInTheSessionsOwnSandboxSessionAndRendersTheOutcome) {
  auto r = result_of(call(1, "execute_code", {{"code", "return 1+1"}}));
  ASSERT_EQ(execution->requests.size(), 1u);
  EXPECT_EQ(execution->requests[0].user_id, "alice");
  EXPECT_EQ(execution->requests[0].session_id, session->id());
  EXPECT_FALSE(r["isError"].get<bool>());
  const auto& s = r["structuredContent"];
  EXPECT_TRUE(s["ok"].get<bool>());
  EXPECT_EQ(s["result"], json({{"sum", 2}}));
  const std::string text = r["content"][0]["text"];
  EXPECT_NE(text.find("returned: {\"sum\":2}"), std::string::npos) << text;
  EXPECT_NE(text.find("adding [EMAIL_1]"), std::string::npos) << text;  // tokens stay tokens: the client is an LLM
  // The model wrote the calls: only failed ones are worth a line (bridge::outcome_text).
  EXPECT_EQ(text.find("tool calls"), std::string::npos) << text;
}

TEST_F(McpSession, AFailedBlockIsAToolErrorWithItsStack) {
  execution->answer.block.ok = false;
  execution->answer.block.failure = bridge::failure_kind::code;
  execution->answer.block.error = {{"name", "TypeError"}, {"message", "x is not a function"}, {"stack", "at line 2"}};
  auto r = result_of(call(1, "execute_code", {{"code", "x()"}}));
  EXPECT_TRUE(r["isError"].get<bool>());
  EXPECT_FALSE(r["structuredContent"]["ok"].get<bool>());
  const std::string text = r["content"][0]["text"];
  EXPECT_NE(text.find("TypeError: x is not a function"), std::string::npos) << text;
  EXPECT_NE(text.find("at line 2"), std::string::npos) << text;
}

// A block whose call went to a user-scoped server the user has not connected.
void needs_account(execution::execute_outcome& answer) {
  answer.block.ok = false;
  answer.block.failure = bridge::failure_kind::code;
  answer.block.error = {{"name", "MCPToolError"}, {"message", "MCP server notes needs you to connect your account"}};
  bridge::tool_call_record call;
  call.name = "notes__whoami";
  call.error_code = "mcp_needs_authorization";
  answer.block.tool_calls = {call, call};
}

TEST_F(McpSession, AClientThatCannotOpenLinksGetsTheUsersLinkInTheNote) {
  result_of(rpc_request(0, "initialize",
                        {{"protocolVersion", "2025-11-25"}, {"capabilities", {{"elicitation", json::object()}}}}));
  needs_account(execution->answer);
  auto r = result_of(call(1, "execute_code", {{"code", "await callMCPTool('notes__whoami', {})"}}));
  EXPECT_EQ(tools->connected, std::vector<std::string>{"notes"});  // once per server
  const std::string note = r["structuredContent"].value("note", "");
  EXPECT_NE(note.find("MCP server notes needs your account connected: open https://auth.example/authorize?state=s1"),
            std::string::npos)
      << r.dump();
}

TEST_F(McpSession, AClientThatOpensLinksIsAskedWithAUrlElicitation) {
  result_of(
      rpc_request(0, "initialize",
                  {{"protocolVersion", "2025-11-25"}, {"capabilities", {{"elicitation", {{"url", json::object()}}}}}}));
  needs_account(execution->answer);
  std::vector<json> asked;
  auto notify = [&](json message) {
    asked.push_back(message);
    // The client answers on its own message, as a response to our request.
    json response = {{"jsonrpc", "2.0"}, {"id", message["id"]}, {"result", {{"action", "accept"}}}};
    asio::co_spawn(io, session->handle(std::move(response), nullptr), asio::detached);
  };
  auto r = run_until_done(io, session->handle(call(1, "execute_code", {{"code", "x"}}), notify));
  ASSERT_TRUE(r);
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0]["method"], "elicitation/create");
  EXPECT_EQ(asked[0]["params"]["mode"], "url");
  EXPECT_EQ(asked[0]["params"]["url"], "https://auth.example/authorize?state=s1");
  const std::string note = (*r)["result"]["structuredContent"].value("note", "");
  EXPECT_NE(note.find("the client was asked to open the link"), std::string::npos) << r->dump();
  EXPECT_NE(note.find("(accept)"), std::string::npos) << r->dump();
}

TEST_F(McpSession, ResetEndsTheSandboxSessionBeforeRunning) {
  result_of(call(1, "execute_code", {{"code", "globalThis.x = 1"}}));
  result_of(call(2, "execute_code", {{"code", "return typeof x"}, {"reset", true}}));
  EXPECT_EQ(execution->ended, std::vector<std::string>{"alice/" + session->id()});
  EXPECT_EQ(execution->requests.size(), 2u);
}

TEST_F(McpSession, AnswersSayWhenTheSandboxIdledOutAndStartedAfresh) {
  execution->answer.opened = true;  // the execution service opened a sandbox for the block
  auto first = result_of(call(1, "execute_code", {{"code", "globalThis.x = 1"}}));
  EXPECT_FALSE(first["structuredContent"].contains("note")) << first.dump();
  execution->answer.opened = false;  // the same sandbox again
  auto second = result_of(call(2, "execute_code", {{"code", "return x"}}));
  EXPECT_FALSE(second["structuredContent"].contains("note")) << second.dump();
  execution->answer.opened = true;  // it had idled out: a new one
  auto third = result_of(call(3, "execute_code", {{"code", "return typeof x"}}));
  EXPECT_NE(third["structuredContent"].value("note", "").find("idle"), std::string::npos) << third.dump();
}

TEST_F(McpSession, ASandboxThatCannotStartIsAToolError) {
  execution->next_error = make_error(execution::errc::too_many_sessions, "user 'alice' already has 4 live sessions");
  auto r = result_of(call(1, "execute_code", {{"code", "return 1"}}));
  EXPECT_TRUE(r["isError"].get<bool>());
  EXPECT_NE(r["content"][0]["text"].get<std::string>().find("4 live sessions"), std::string::npos);
}

TEST_F(McpSession, ProgressIsNotifiedWhileABlockRunsAndStopsWithIt) {
  execution->hold = true;
  std::vector<json> notes;
  auto notify = [&](json note) {
    notes.push_back(std::move(note));
    execution->release.set();  // the first tick lets the block finish
  };
  auto r = run_until_done(
      io, session->handle(call(7, "execute_code", {{"code", "return 1"}}, {{"progressToken", "tok"}}), notify));
  ASSERT_TRUE(r);
  EXPECT_FALSE((*r)["result"]["isError"].get<bool>());
  ASSERT_GE(notes.size(), 1u);
  EXPECT_EQ(notes[0]["method"], "notifications/progress");
  EXPECT_EQ(notes[0]["params"]["progressToken"], "tok");
  EXPECT_EQ(notes[0]["params"]["progress"], 1);
  const auto after = notes.size();
  io.restart();
  io.run_for(std::chrono::milliseconds(30));  // no tick after the answer
  EXPECT_EQ(notes.size(), after);
}

TEST_F(McpSession, CancellingARunningBlockStopsItsSandboxAndSuppressesTheAnswer) {
  execution->hold = true;
  std::optional<std::optional<json>> answer;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        json message = call(5, "execute_code", {{"code", "while(true){}"}});  // a local: GCC 12 in coroutines
        answer = co_await session->handle(std::move(message), nullptr);
      },
      asio::detached);
  io.restart();
  io.poll();  // runs until the block is held
  ASSERT_FALSE(answer.has_value());
  EXPECT_TRUE(session->busy());
  EXPECT_FALSE(send(json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 5}}}}));
  io.restart();
  io.poll();  // the kill releases the block, which ends
  ASSERT_TRUE(answer.has_value());
  EXPECT_FALSE(answer->has_value());  // a cancelled request is not answered
  EXPECT_EQ(execution->ended, std::vector<std::string>{"alice/" + session->id()});
  // The next block says its variables are gone.
  execution->hold = false;
  auto next = result_of(call(6, "execute_code", {{"code", "return 1"}}));
  EXPECT_NE(next["structuredContent"].value("note", "").find("cancelled"), std::string::npos) << next.dump();
}

TEST_F(McpSession, ACancelledBlockEndingLateDoesNotForgetTheNextBlocksSandbox) {
  execution->hold = true;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        json message = call(5, "execute_code", {{"code", "while(true){}"}});  // a local: GCC 12 in coroutines
        co_await session->handle(std::move(message), nullptr);
      },
      asio::detached);
  io.restart();
  io.poll();
  EXPECT_FALSE(send(json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 5}}}}));
  // The next block opens a new sandbox while the cancelled one is still ending.
  execution->hold = false;
  result_of(call(6, "execute_code", {{"code", "globalThis.y = 5"}}));
  io.restart();
  io.poll();
  // So a reset must end that new sandbox, whatever order the two ended in.
  result_of(call(7, "execute_code", {{"code", "return typeof y"}, {"reset", true}}));
  EXPECT_EQ(execution->ended.size(), 2u);
}

TEST_F(McpSession, SessionsBelongToTheKeyThatOpenedThem) {
  EXPECT_EQ(face->find(session->id(), "key_1"), session);
  EXPECT_EQ(face->find(session->id(), "key_2"), nullptr);
  EXPECT_EQ(face->find(session->id(), ""), nullptr);
  EXPECT_FALSE(run_until_done(io, face->end(session->id(), "key_2")));
  EXPECT_TRUE(run_until_done(io, face->end(session->id(), "key_1")));
  EXPECT_EQ(face->find(session->id(), "key_1"), nullptr);
}

TEST_F(McpSession, SessionIdsAreLongAndRandom) {
  auto other = face->open("alice", "key_1", false).session;
  ASSERT_NE(other, nullptr);
  EXPECT_NE(other->id(), session->id());
  EXPECT_EQ(session->id().size(), 4u + 32u);
}

TEST_F(McpSession, ClosingASessionThatRanCodeEndsItsSandbox) {
  result_of(call(1, "execute_code", {{"code", "return 1"}}));
  run_until_done(io, face->end(session->id(), "key_1"));
  EXPECT_EQ(execution->ended, std::vector<std::string>{"alice/" + session->id()});
}

TEST(McpFace, RefusesSessionsPastTheLimit) {
  asio::io_context io;
  face_config config;
  config.max_sessions = 2;
  auto face = create_mcp_face(io.get_executor(), core::real_clock(), {}, config);
  EXPECT_NE(face->open("a", "", false).session, nullptr);
  EXPECT_NE(face->open("b", "", false).session, nullptr);
  auto refused = face->open("c", "", false);
  EXPECT_EQ(refused.session, nullptr);
  EXPECT_EQ(refused.refused, session_refusal::server_full);
  run_until_done(io, face->shutdown());
}

// One key, or one user, cannot take every session of the server.
TEST(McpFace, OneKeyOrOneUserHoldsAtMostItsShare) {
  asio::io_context io;
  face_config config;
  config.max_sessions = 10;
  config.max_sessions_per_key = 2;
  config.max_sessions_per_user = 3;
  auto face = create_mcp_face(io.get_executor(), core::real_clock(), {}, config);
  EXPECT_NE(face->open("alice", "key_1", false).session, nullptr);
  EXPECT_NE(face->open("bob", "key_1", false).session, nullptr);
  EXPECT_EQ(face->open("carol", "key_1", false).refused, session_refusal::key_full);
  // Another key still opens, for a user with room.
  EXPECT_NE(face->open("alice", "key_2", false).session, nullptr);
  EXPECT_NE(face->open("alice", "key_3", false).session, nullptr);
  EXPECT_EQ(face->open("alice", "key_4", false).refused, session_refusal::user_full);
  // The open caller (no key) counts per user only.
  EXPECT_NE(face->open("dave", "", false).session, nullptr);
  EXPECT_NE(face->open("dave", "", false).session, nullptr);
  EXPECT_EQ(face->session_count(), 6u);
  run_until_done(io, face->shutdown());
}

TEST(McpFace, WithReplicasASessionIdNamesItsReplica) {
  asio::io_context io;
  face_config config;
  config.replica = "replica-a";
  auto face = create_mcp_face(io.get_executor(), core::real_clock(), {}, config);
  auto session = face->open("a", "", false).session;
  ASSERT_NE(session, nullptr);
  EXPECT_TRUE(session->id().ends_with(".replica-a")) << session->id();
  EXPECT_EQ(face->elsewhere(session->id()), "");
  auto other = session->id().substr(0, session->id().size() - std::string("replica-a").size()) + "replica-b.eu";
  EXPECT_EQ(face->elsewhere(other), "replica-b.eu");
  EXPECT_EQ(face->elsewhere("mcp_short.replica-b"), "");
  EXPECT_EQ(face->elsewhere("not an id"), "");
  // Without replicas, ids carry none and nothing is elsewhere.
  auto single = create_mcp_face(io.get_executor(), core::real_clock(), {}, {});
  auto plain = single->open("a", "", false).session;
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->id().find('.'), std::string::npos) << plain->id();
  EXPECT_EQ(single->elsewhere(other), "");
  run_until_done(io, face->shutdown());
  run_until_done(io, single->shutdown());
}

TEST(McpFace, KindOfTellsRequestsNotificationsAndTheRest) {
  EXPECT_EQ(kind_of(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}}), message_kind::request);
  EXPECT_EQ(kind_of(json{{"jsonrpc", "2.0"}, {"id", "a"}, {"method", "ping"}}), message_kind::request);
  EXPECT_EQ(kind_of(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}), message_kind::notification);
  EXPECT_EQ(kind_of(json{{"jsonrpc", "2.0"}, {"id", nullptr}, {"method", "ping"}}), message_kind::other);
  EXPECT_EQ(kind_of(json{{"jsonrpc", "2.0"}, {"id", 1.5}, {"method", "ping"}}), message_kind::other);
  EXPECT_EQ(kind_of(json{{"jsonrpc", "1.0"}, {"id", 1}, {"method", "ping"}}), message_kind::other);
  EXPECT_EQ(kind_of(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", 7}}), message_kind::other);
  EXPECT_EQ(kind_of(json::array()), message_kind::other);
}

}  // namespace
}  // namespace harness::mcp_server
