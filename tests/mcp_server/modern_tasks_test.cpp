// The Tasks extension (io.modelcontextprotocol/tasks) on the face's
// 2026-07-28 era, against the fakes: a long execute_code answers with a task
// that tasks/get follows to its result, tasks/update answers an approval the
// block asks for on the way, tasks/cancel stops the block; short blocks and
// clients without the extension get their answer directly; a task is its
// caller's alone. The official SDK 2.4.0 client against the real server is
// in mcp_face_integration_test.cpp.
#include <gtest/gtest.h>

#include "mcp_server/modern_fixture.hpp"

namespace harness::mcp_server {
namespace {

using namespace testing;

json with_tasks(json message) {
  message["params"]["_meta"][modern::capabilities_key] = {{"elicitation", {{"form", json::object()}}},
                                                          {"extensions", {{modern::tasks_extension, json::object()}}}};
  return message;
}

json task_request(int id, const char* method, const std::string& task_id, json more = json::object()) {
  more["taskId"] = task_id;
  return with_tasks(request(id, method, std::move(more)));
}

// Every block that is still running when it is looked at becomes a task at once.
class McpModernTasks : public McpModern {
 protected:
  void SetUp() override {
    config.task_after = std::chrono::milliseconds(0);
    McpModern::SetUp();
  }

  // Starts execute_code in a held block and returns the task it answered with.
  json start_task(int id = 1) {
    execution->hold = true;
    std::optional<json> answer;
    start(with_tasks(call(id, "execute_code", {{"code", "await slow()"}})), answer);
    EXPECT_TRUE(poll_until([&] { return answer.has_value(); }));
    return answer ? (*answer)["result"] : json();
  }
  // Asks tasks/get until `done` holds for the task (or a bound of rounds passes).
  template <class Done>
  json get_until(const std::string& task_id, Done done) {
    json task;
    for (int i = 0; i < 200; ++i) {
      task = result_of(task_request(100 + i, "tasks/get", task_id));
      if (done(task)) break;
      poll_until([] { return false; });
    }
    return task;
  }
};

TEST_F(McpModernTasks, ALongBlockAnswersWithATaskThatTasksGetFollowsToItsResult) {
  auto discover = result_of(request(1, "server/discover"));
  EXPECT_TRUE(discover["capabilities"]["extensions"].contains(modern::tasks_extension)) << discover.dump();

  json task = start_task();
  ASSERT_EQ(task["resultType"], "task") << task.dump();
  const std::string task_id = task["taskId"];
  EXPECT_TRUE(task_id.starts_with("task_")) << task_id;
  EXPECT_EQ(task["status"], "working");
  EXPECT_EQ(task["pollIntervalMs"], 1000);
  EXPECT_GT(task["ttlMs"].get<long long>(), 0);
  EXPECT_EQ(task["createdAt"].get<std::string>().size(), std::string("2026-07-28T10:30:00.000Z").size());
  EXPECT_TRUE(task["_meta"].contains(modern::server_info_key));
  // The block runs in a one-shot sandbox: no session is kept for it.
  ASSERT_EQ(execution->requests.size(), 1u);
  EXPECT_FALSE(execution->requests[0].session_id.has_value());

  auto working = result_of(task_request(2, "tasks/get", task_id));
  EXPECT_EQ(working["resultType"], "complete");
  EXPECT_EQ(working["status"], "working");
  EXPECT_FALSE(working.contains("result"));

  execution->hold = false;
  execution->release.set();
  auto done = get_until(task_id, [](const json& t) { return t["status"] != "working"; });
  ASSERT_EQ(done["status"], "completed") << done.dump();
  EXPECT_EQ(done["result"]["structuredContent"]["result"]["sum"], 2);
  EXPECT_FALSE(done["result"]["isError"].get<bool>());
  // Asked again, the same answer: a task keeps its result for its ttlMs.
  EXPECT_EQ(result_of(task_request(3, "tasks/get", task_id))["result"], done["result"]);
}

TEST_F(McpModernTasks, ATaskIsItsCallersAlone) {
  const std::string task_id = start_task()["taskId"];
  auto text_of = [&](mcp_caller caller, const std::string& id) {
    auto answer = send(task_request(2, "tasks/get", id), std::move(caller));
    EXPECT_TRUE(answer && answer->contains("error")) << (answer ? answer->dump() : "none");
    return answer ? std::make_pair((*answer)["error"]["code"].get<int>(), (*answer)["error"]["message"].dump())
                  : std::make_pair(0, std::string());
  };
  const auto made_up = text_of({"alice", "key_1", false}, "task_0123456789abcdef0123456789abcdef");
  EXPECT_EQ(made_up.first, -32602);
  EXPECT_EQ(text_of({"bob", "key_1", false}, task_id), made_up);
  EXPECT_EQ(text_of({"alice", "key_2", false}, task_id), made_up);
  // Nor can another caller cancel it.
  auto cancel = send(task_request(3, "tasks/cancel", task_id), {"bob", "key_1", false});
  EXPECT_EQ((*cancel)["error"]["code"], -32602);
  EXPECT_FALSE(execution->killed);
  // A task id is no requestState, and a requestState no task id.
  auto retry = with_tasks(call(4, "execute_code", {{"code", "1"}}));
  retry["params"]["requestState"] = task_id;
  EXPECT_NE((*send(retry))["error"]["message"].get<std::string>().find("unknown requestState"), std::string::npos);
  execution->release.set();
}

TEST_F(McpModernTasks, TasksCancelStopsTheBlock) {
  const std::string task_id = start_task()["taskId"];
  auto ack = result_of(task_request(2, "tasks/cancel", task_id));
  EXPECT_EQ(ack["resultType"], "complete");
  auto ended = get_until(task_id, [](const json& t) { return t["status"] != "working"; });
  EXPECT_EQ(ended["status"], "cancelled") << ended.dump();
  EXPECT_TRUE(execution->killed);  // the one-shot block's sandbox was stopped
  // Cancelling an ended task changes nothing.
  result_of(task_request(3, "tasks/cancel", task_id));
  EXPECT_EQ(result_of(task_request(4, "tasks/get", task_id))["status"], "cancelled");
}

TEST_F(McpModernTasks, AnApprovalAskedByARunningTaskIsAnsweredWithTasksUpdate) {
  const std::string task_id = start_task()["taskId"];
  std::optional<policy::approval_answer> decided;
  auto asking = [](std::shared_ptr<policy::approver> a,
                   std::optional<policy::approval_answer>& out) -> asio::awaitable<void> {
    policy::approval_request request{"fs__write_file", {{"path", "a.txt"}}, "await callMCPTool(...)", "rule 1"};
    out = co_await a->ask(std::move(request));  // a named request: GCC 12 and temporaries in co_await
  };
  asio::co_spawn(io, asking(execution->requests[0].approver, decided), asio::detached);
  auto asked = get_until(task_id, [](const json& t) { return t["status"] != "working"; });
  ASSERT_EQ(asked["status"], "input_required") << asked.dump();
  ASSERT_EQ(asked["inputRequests"].size(), 1u);
  const auto key = asked["inputRequests"].items().begin().key();
  EXPECT_EQ(asked["inputRequests"][key]["method"], "elicitation/create");
  EXPECT_FALSE(decided.has_value());

  auto ack = result_of(task_request(
      2, "tasks/update", task_id, {{"inputResponses", {{key, {{"action", "accept"}, {"content", json::object()}}}}}}));
  EXPECT_EQ(ack["resultType"], "complete");
  ASSERT_TRUE(poll_until([&] { return decided.has_value(); }));
  EXPECT_EQ(decided->outcome, policy::approval_outcome::approved);
  EXPECT_EQ(result_of(task_request(3, "tasks/get", task_id))["status"], "working");
  execution->hold = false;
  execution->release.set();
  auto done = get_until(task_id, [](const json& t) { return t["status"] != "working"; });
  EXPECT_EQ(done["status"], "completed") << done.dump();
}

TEST_F(McpModernTasks, WithoutTheExtensionNoTaskAndNoTasksMethods) {
  execution->hold = true;
  std::optional<json> answer;
  start(call(1, "execute_code", {{"code", "await slow()"}}), answer);  // capabilities {}
  ASSERT_TRUE(poll_until([&] { return execution->requests.size() == 1; }));
  EXPECT_FALSE(answer.has_value());  // it waits for the block, however long
  execution->hold = false;
  execution->release.set();
  ASSERT_TRUE(poll_until([&] { return answer.has_value(); }));
  EXPECT_EQ((*answer)["result"]["resultType"], "complete");

  auto refused = send(request(2, "tasks/get", {{"taskId", "task_x"}}));
  ASSERT_TRUE(refused);
  EXPECT_EQ((*refused)["error"]["code"], modern::missing_capability);
  EXPECT_TRUE((*refused)["error"]["data"]["requiredCapabilities"]["extensions"].contains(modern::tasks_extension));
  auto no_id = send(with_tasks(request(3, "tasks/get")));
  EXPECT_EQ((*no_id)["error"]["code"], -32602);
}

TEST_F(McpModern, AShortBlockAnswersDirectlyEvenToAClientThatTakesTasks) {
  // The default MCP_TASK_AFTER_MS (1 s) and a block that answers at once.
  auto r = result_of(with_tasks(call(1, "execute_code", {{"code", "return 1 + 1"}})));
  EXPECT_EQ(r["resultType"], "complete") << r.dump();
  EXPECT_EQ(r["structuredContent"]["result"]["sum"], 2);
}

// With replicas a task id names its replica; one of another replica is named
// (the HTTP route answers 421 for data.replica), not "not found".
class McpModernTasksOnReplicas : public McpModernTasks {
 protected:
  void SetUp() override {
    config.replica = "r1";
    McpModernTasks::SetUp();
  }
};

TEST_F(McpModernTasksOnReplicas, ATaskOfAnotherReplicaIsNamedAsSuch) {
  const std::string task_id = start_task()["taskId"];
  EXPECT_TRUE(task_id.ends_with(".r1")) << task_id;
  EXPECT_EQ(result_of(task_request(2, "tasks/get", task_id))["status"], "working");
  auto elsewhere = send(task_request(3, "tasks/get", "task_0123456789abcdef0123456789abcdef.r2"));
  ASSERT_TRUE(elsewhere && elsewhere->contains("error"));
  EXPECT_EQ((*elsewhere)["error"]["data"]["replica"], "r2") << elsewhere->dump();
  execution->release.set();
}

TEST(McpModernTasksHeaders, McpNameCarriesTheTaskId) {
  auto get = task_request(1, "tasks/get", "task_abc");
  EXPECT_FALSE(modern::check_headers(get, {"2026-07-28", "tasks/get", "task_abc", std::nullopt}));
  EXPECT_TRUE(modern::check_headers(get, {"2026-07-28", "tasks/get", "task_other", std::nullopt}));
  EXPECT_TRUE(modern::check_headers(get, {"2026-07-28", "tasks/get", std::nullopt, std::nullopt}));
}

}  // namespace
}  // namespace harness::mcp_server
