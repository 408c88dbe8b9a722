// run_task on the MCP face against a fake agent: offered only with an agent,
// the run acts as the caller, its steps are progress, its approvals are put
// to the client (and decided with the answer), a cancel of the call cancels
// the run, and a run that fails is a tool error. The real agent behind the
// real face: McpFaceSdk's run_task check (sdk2_client_test.cjs).
#include <gtest/gtest.h>

#include <deque>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/agent/agent_manager.hpp"
#include "harness/mcp_server/mcp_face.hpp"
#include "mcp_server/fakes.hpp"
#include "support/run_sync.hpp"

namespace harness::mcp_server {
namespace {

namespace asio = boost::asio;
using json = nlohmann::json;
using fakes::rpc_request;
using harness::testing::run_until_done;

asio::awaitable<void> pause(std::chrono::milliseconds ms) {
  asio::steady_timer timer(co_await asio::this_coro::executor, ms);
  co_await timer.async_wait(asio::use_awaitable);
}

// An agent whose one run plays the events the test queues, and ends when told.
class fake_agent final : public agent::agent_manager {
 public:
  std::vector<agent::task_request> submitted;
  std::vector<std::string> cancelled;
  std::vector<std::pair<std::string, agent::approval_decision>> decisions;
  std::deque<store::event_record> events_to_play;
  bool ended = false;  // once the queued events are played, the run is over
  agent::task_view final_view;

  fake_agent() {
    final_view.status = store::task_status::succeeded;
    final_view.result = "the answer";
    final_view.turns = 2;
  }
  void queue(std::string type, json data = json::object()) {
    events_to_play.push_back(
        {"task-1", static_cast<std::int64_t>(events_to_play.size() + 1), std::move(type), std::move(data), 0});
  }

  asio::awaitable<result<agent::task_ticket>> submit(agent::task_request request) override {
    submitted.push_back(std::move(request));
    co_return agent::task_ticket{"task-1", "conv-1", store::task_status::running};
  }
  asio::awaitable<result<agent::task_view>> wait(std::string task_id) override {
    while (!ended || !events_to_play.empty()) co_await pause(std::chrono::milliseconds(2));
    auto view = final_view;
    view.task_id = task_id;
    view.conversation_id = "conv-1";
    co_return view;
  }
  asio::awaitable<result<agent::task_view>> view(std::string task_id, bool) override {
    co_return co_await wait(task_id);
  }
  asio::awaitable<result<std::vector<agent::task_view>>> list(store::task_query) override {
    co_return std::vector<agent::task_view>{};
  }
  asio::awaitable<result<agent::cancel_outcome>> cancel(std::string task_id) override {
    cancelled.push_back(task_id);
    final_view.status = store::task_status::cancelled;
    final_view.result = nullptr;
    ended = true;
    co_return agent::cancel_outcome{task_id, agent::cancel_state::cancelling};
  }
  asio::awaitable<result<agent::approval_view>> decide(std::string task_id, std::string approval_id,
                                                       agent::approval_decision decision) override {
    decisions.emplace_back(approval_id, decision);
    (void)task_id;
    co_return agent::approval_view{};
  }
  asio::awaitable<result<std::shared_ptr<agent::task_event_stream>>> events(std::string, std::int64_t) override {
    co_return std::shared_ptr<agent::task_event_stream>(std::make_shared<stream>(*this));
  }
  asio::awaitable<void> shutdown(std::chrono::milliseconds) override { co_return; }
  agent::agent_stats stats() const override { return {}; }

 private:
  class stream final : public agent::task_event_stream {
   public:
    explicit stream(fake_agent& owner) : owner_(owner) {}
    asio::awaitable<std::optional<store::event_record>> next(std::chrono::milliseconds) override {
      if (!owner_.events_to_play.empty()) {
        auto event = owner_.events_to_play.front();
        owner_.events_to_play.pop_front();
        co_return event;
      }
      if (owner_.ended) co_return std::nullopt;
      co_await pause(std::chrono::milliseconds(2));
      co_return store::event_record{};  // a keep-alive
    }

   private:
    fake_agent& owner_;
  };
};

json run_task_call(int id, json args, json meta = nullptr) {
  json params{{"name", "run_task"}, {"arguments", std::move(args)}};
  if (!meta.is_null()) params["_meta"] = std::move(meta);
  return rpc_request(id, "tools/call", std::move(params));
}

class RunTask : public ::testing::Test {
 protected:
  void SetUp() override {
    face = create_mcp_face(io.get_executor(), core::real_clock(), {.agent = agent}, config);
    session = face->open("alice", "key_1", false).session;
    ASSERT_NE(session, nullptr);
  }
  void TearDown() override { run_until_done(io, face->shutdown()); }

  std::optional<json> send(json message, notify_fn notify = nullptr) {
    return run_until_done(io, session->handle(std::move(message), std::move(notify)));
  }

  // Starts a run_task (request `id`) that goes on until cancelled; its answer
  // lands in the slot (an empty answer: the request was cancelled).
  std::shared_ptr<std::optional<std::optional<json>>> start_endless_run(int id) {
    auto answer = std::make_shared<std::optional<std::optional<json>>>();
    asio::co_spawn(
        io,
        [this, answer, id]() -> asio::awaitable<void> {
          json message = run_task_call(id, {{"task", "forever"}});  // a local: GCC 12 in coroutines
          *answer = co_await session->handle(std::move(message), nullptr);
        },
        asio::detached);
    io.restart();
    io.run_for(std::chrono::milliseconds(20));
    return answer;
  }
  // Runs the loop (bounded: 1 s) until `slot` is filled.
  void settle_until(const std::optional<std::optional<json>>& slot) {
    for (int i = 0; i < 100 && !slot; ++i) {
      io.restart();
      io.run_for(std::chrono::milliseconds(10));
    }
  }

  asio::io_context io;
  face_config config;
  std::shared_ptr<fake_agent> agent = std::make_shared<fake_agent>();
  std::shared_ptr<mcp_face> face;
  std::shared_ptr<mcp_session> session;
};

TEST_F(RunTask, IsOfferedOnlyWhenTheServerHasAnAgent) {
  auto listed = send(rpc_request(1, "tools/list"));
  ASSERT_TRUE(listed);
  const auto& tools = (*listed)["result"]["tools"];
  auto it = std::find_if(tools.begin(), tools.end(), [](const json& t) { return t["name"] == "run_task"; });
  ASSERT_NE(it, tools.end()) << tools.dump();
  EXPECT_EQ((*it)["inputSchema"]["required"], json::array({"task"}));

  auto plain = create_mcp_face(io.get_executor(), core::real_clock(), {}, config);
  auto other = plain->open("alice", "key_1", false).session;
  auto without = run_until_done(io, other->handle(rpc_request(1, "tools/list"), nullptr));
  ASSERT_TRUE(without);
  for (const auto& t : (*without)["result"]["tools"]) EXPECT_NE(t["name"], "run_task");
  auto refused = run_until_done(io, other->handle(run_task_call(2, {{"task", "x"}}), nullptr));
  ASSERT_TRUE(refused);
  EXPECT_EQ((*refused)["error"]["code"], -32602) << refused->dump();
  run_until_done(io, plain->shutdown());
}

TEST_F(RunTask, ARunActsAsTheCallerReportsItsStepsAndAnswers) {
  agent->queue("llm_start", {{"turn", 1}});
  agent->queue("code", {{"code", "return 1"}});
  agent->queue("tool_call", {{"tool", "fs__read_file"}});
  agent->queue("observation");
  agent->queue("final", {{"answer", "the answer"}});
  agent->ended = true;
  std::vector<std::string> steps;
  auto notify = [&](json note) { steps.push_back(note["params"].value("message", "")); };
  auto r = send(run_task_call(3, {{"task", "sum the sales"}}, {{"progressToken", "tok"}}), notify);
  ASSERT_TRUE(r);
  const json& result = (*r)["result"];
  EXPECT_FALSE(result["isError"].get<bool>()) << r->dump();
  EXPECT_EQ(result["content"][0]["text"], "the answer");
  EXPECT_EQ(result["structuredContent"]["taskId"], "task-1");
  EXPECT_EQ(result["structuredContent"]["conversationId"], "conv-1");
  EXPECT_EQ(result["structuredContent"]["status"], "succeeded");
  EXPECT_EQ(result["structuredContent"]["turns"], 2);
  ASSERT_EQ(agent->submitted.size(), 1u);
  EXPECT_EQ(agent->submitted[0].user_id, "alice");
  EXPECT_EQ(agent->submitted[0].key_id, "key_1");
  EXPECT_EQ(agent->submitted[0].task, "sum the sales");
  EXPECT_EQ(agent->submitted[0].mode, "mcp");
  EXPECT_FALSE(agent->submitted[0].restore_pii) << "the client's model sees PII tokens, never the values";
  EXPECT_EQ(steps, (std::vector<std::string>{"task task-1 started", "turn 1: the model is working",
                                             "running a code block", "called fs__read_file", "finished"}));
}

TEST_F(RunTask, AnApprovalTheRunNeedsIsPutToTheClientAndDecidedWithItsAnswer) {
  send(rpc_request(0, "initialize",
                   {{"protocolVersion", "2025-11-25"}, {"capabilities", {{"elicitation", json::object()}}}}));
  agent->queue("approval_requested", {{"approvalId", "ap-1"},
                                      {"tool", "fs__write_file"},
                                      {"arguments", {{"path", "/tmp/x"}}},
                                      {"code", "await callMCPTool('fs__write_file', {path: '/tmp/x'})"},
                                      {"reason", "rule 1 (fs__write_file)"}});
  agent->queue("approval_decided", {{"tool", "fs__write_file"}, {"decision", "approved"}});
  agent->ended = true;
  std::vector<json> asked;
  auto notify = [&](json message) {
    if (message.value("method", "") != "elicitation/create") return;
    asked.push_back(message);
    json response = {{"jsonrpc", "2.0"},
                     {"id", message["id"]},
                     {"result", {{"action", "accept"}, {"content", {{"scope", "task"}}}}}};
    asio::co_spawn(io, session->handle(std::move(response), nullptr), asio::detached);
  };
  auto r = send(run_task_call(4, {{"task", "write it"}}), notify);
  ASSERT_TRUE(r);
  EXPECT_FALSE((*r)["result"]["isError"].get<bool>()) << r->dump();
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_NE(asked[0]["params"]["message"].get<std::string>().find("fs__write_file"), std::string::npos);
  ASSERT_EQ(agent->decisions.size(), 1u);
  EXPECT_EQ(agent->decisions[0].first, "ap-1");
  EXPECT_TRUE(agent->decisions[0].second.approve);
  EXPECT_TRUE(agent->decisions[0].second.for_task);
  EXPECT_EQ(agent->decisions[0].second.key_id, "key_1");
}

TEST_F(RunTask, CancellingTheCallCancelsTheRun) {
  auto answer = start_endless_run(5);
  ASSERT_FALSE(answer->has_value());
  EXPECT_TRUE(agent->cancelled.empty());
  EXPECT_FALSE(send(json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 5}}}}));
  settle_until(*answer);
  EXPECT_EQ(agent->cancelled, std::vector<std::string>{"task-1"});
  ASSERT_TRUE(answer->has_value());
  EXPECT_FALSE((*answer)->has_value());  // a cancelled request is not answered
}

TEST_F(RunTask, ASecondCallWhileARunGoesOnIsRefusedAndClosingTheSessionCancelsTheRun) {
  auto answer = start_endless_run(8);
  ASSERT_FALSE(answer->has_value());
  for (json second :
       {run_task_call(9, {{"task", "another"}}),
        rpc_request(10, "tools/call", {{"name", "execute_code"}, {"arguments", {{"code", "return 1"}}}})}) {
    auto refused = send(second);
    ASSERT_TRUE(refused);
    EXPECT_TRUE((*refused)["result"]["isError"].get<bool>()) << refused->dump();
    EXPECT_NE((*refused)["result"]["content"][0]["text"].get<std::string>().find("running"), std::string::npos);
  }
  EXPECT_EQ(agent->submitted.size(), 1u);
  run_until_done(io, session->close());
  settle_until(*answer);
  EXPECT_EQ(agent->cancelled, std::vector<std::string>{"task-1"});
  ASSERT_TRUE(answer->has_value());
}

TEST_F(RunTask, ARunThatFailsIsAToolErrorAndABadTaskIsRefused) {
  agent->final_view.status = store::task_status::failed;
  agent->final_view.result = nullptr;
  agent->final_view.error = {{"code", "llm_error"}, {"message", "the model is unreachable"}};
  agent->ended = true;
  auto r = send(run_task_call(6, {{"task", "anything"}}));
  ASSERT_TRUE(r);
  EXPECT_TRUE((*r)["result"]["isError"].get<bool>());
  EXPECT_EQ((*r)["result"]["content"][0]["text"], "the task ended failed: the model is unreachable");
  EXPECT_EQ((*r)["result"]["structuredContent"]["error"]["code"], "llm_error");

  for (json args :
       {json::object(), json{{"task", ""}}, json{{"task", 3}}, json{{"task", "x"}, {"conversationId", 1}}}) {
    auto bad = send(run_task_call(7, args));
    ASSERT_TRUE(bad);
    EXPECT_TRUE((*bad)["result"]["isError"].get<bool>()) << args.dump();
  }
  EXPECT_EQ(agent->submitted.size(), 1u) << "a bad call submits nothing";
}

}  // namespace
}  // namespace harness::mcp_server
