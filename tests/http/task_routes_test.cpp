// The task routes over a stub agent_manager: the wire JSON they write from the
// service's structs, and the ownership check, which compares the view's user.
#include <gtest/gtest.h>

#include "harness/http/api.hpp"
#include "harness/http/services.hpp"
#include "harness/store/errors.hpp"
#include "http/run_dispatch.hpp"
#include "http/stub_agent.hpp"

namespace harness::http {
namespace {

using json = nlohmann::json;
using agent::task_status;
using testing::stub_agent;

class TaskRoutes : public ::testing::Test {
 protected:
  TaskRoutes() { svc.agent = agent; }
  http_response call(std::string method, std::string target) {
    return run_dispatch(make_api_router(), svc, make_request(std::move(method), std::move(target)));
  }
  std::shared_ptr<stub_agent> agent = std::make_shared<stub_agent>();
  services svc{core::real_clock()};
};

TEST_F(TaskRoutes, TheViewIsWrittenWithEveryWireField) {
  auto r = call("GET", "/tasks/task_1?userId=alice&transcript=false");
  ASSERT_EQ(r.status, 200u) << r.body;
  EXPECT_EQ(json::parse(r.body), json::parse(R"({
    "taskId": "task_1", "userId": "alice", "keyId": null, "conversationId": "conv_1", "status": "succeeded",
    "task": "add 2 and 3", "mode": "async", "language": "python", "traceId": "4bf92f3577b34da6a3ce929d0e0e4736",
    "result": "5", "turns": 2,
    "usage": {"inputTokens": 30, "outputTokens": 7}, "durationMs": 1234,
    "createdAt": "2025-12-01T00:00:00.000Z", "startedAt": "2025-12-01T00:00:00.010Z",
    "finishedAt": "2025-12-01T00:00:01.234Z"})"));
  auto with = call("GET", "/tasks/task_1");
  ASSERT_EQ(with.status, 200u);
  EXPECT_TRUE(json::parse(with.body)["transcript"].is_array());
}

TEST_F(TaskRoutes, AnotherUsersTaskIsAnsweredLikeAnUnknownOne) {
  auto other = call("GET", "/tasks/task_1?userId=bob");
  auto unknown = call("GET", "/tasks/task_9?userId=alice");
  EXPECT_EQ(other.status, 404u);
  EXPECT_EQ(unknown.status, 404u);
  EXPECT_EQ(json::parse(other.body)["error"]["code"], "task_not_found");
  EXPECT_EQ(json::parse(other.body)["error"]["message"], "there is no task 'task_1'");
  auto refused = call("DELETE", "/tasks/task_1?userId=bob");
  EXPECT_EQ(refused.status, 404u);
  EXPECT_TRUE(agent->cancelled.empty());
  auto ok = call("DELETE", "/tasks/task_1?userId=alice");
  ASSERT_EQ(ok.status, 202u) << ok.body;
  EXPECT_EQ(json::parse(ok.body), json::parse(R"({"taskId":"task_1","status":"cancelling"})"));
  EXPECT_EQ(agent->cancelled, std::vector<std::string>{"task_1"});
}

// No LLM configured: only starting or continuing a task needs one; every
// route that reads or deletes stored data is served from the store.
TEST_F(TaskRoutes, WithoutAnLlmStoredTasksAreServedAndOnlyNewOnesAre503) {
  svc.agent_unavailable = "no LLM is configured: set LLM_API_KEY";
  auto post = make_request("POST", "/task");
  post.headers = {{"Content-Type", "application/json"}};
  post.body = R"({"userId":"alice","task":"t","conversationId":"conv_1"})";
  auto refused = run_dispatch(make_api_router(), svc, post);
  EXPECT_EQ(refused.status, 503u);
  EXPECT_EQ(json::parse(refused.body)["error"]["code"], "agent_unavailable");
  EXPECT_EQ(json::parse(refused.body)["error"]["message"], "no LLM is configured: set LLM_API_KEY");
  EXPECT_TRUE(agent->submitted.empty());

  EXPECT_EQ(call("GET", "/tasks").status, 200u);
  EXPECT_EQ(call("GET", "/tasks?userId=alice").status, 200u);
  EXPECT_EQ(call("GET", "/tasks/task_1?userId=alice").status, 200u);
  EXPECT_EQ(call("DELETE", "/tasks/task_1?userId=alice").status, 202u);
  // The stub has no events: the store's answer (404), not 503.
  EXPECT_EQ(call("GET", "/tasks/task_1/events?userId=alice").status, 404u);
}

TEST_F(TaskRoutes, TheListParsesTheStatusAndWritesEachView) {
  auto r = call("GET", "/tasks?userId=alice&status=succeeded&limit=5");
  ASSERT_EQ(r.status, 200u) << r.body;
  auto body = json::parse(r.body);
  ASSERT_EQ(body["tasks"].size(), 1u);
  EXPECT_EQ(body["tasks"][0]["status"], "succeeded");
  EXPECT_EQ(agent->last_query.status, task_status::succeeded);
  EXPECT_EQ(agent->last_query.limit, 6u);  // one more than the page: is there another?
  // A status no task can have lists nothing, as before.
  auto none = call("GET", "/tasks?userId=alice&status=done");
  ASSERT_EQ(none.status, 200u);
  EXPECT_EQ(json::parse(none.body), json::parse(R"({"tasks":[],"nextCursor":null})"));
}

TEST_F(TaskRoutes, WithoutAUserAnAdminListsEveryUsersTasks) {
  // No gate: the open caller, who may act for anyone.
  auto r = call("GET", "/tasks");
  ASSERT_EQ(r.status, 200u) << r.body;
  EXPECT_EQ(agent->last_query.user_id, "");
  EXPECT_EQ(json::parse(r.body)["tasks"].size(), 1u);
  ASSERT_EQ(call("GET", "/tasks?userId=alice").status, 200u);
  EXPECT_EQ(agent->last_query.user_id, "alice");
}

TEST_F(TaskRoutes, APageWithMoreBehindItGivesTheCursorOfTheNextOne) {
  // The stub lists two tasks: behind a page of one there is more; a page of
  // two (exactly full) and of five have nothing behind them.
  agent->listed = 2;
  auto full = json::parse(call("GET", "/tasks?limit=1").body);
  ASSERT_TRUE(full["nextCursor"].is_string()) << full.dump();
  EXPECT_EQ(full["tasks"].size(), 1u);
  auto cursor = full["nextCursor"].get<std::string>();
  EXPECT_EQ(json::parse(call("GET", "/tasks?limit=2").body)["nextCursor"], nullptr);
  EXPECT_EQ(json::parse(call("GET", "/tasks?limit=2").body)["tasks"].size(), 2u);
  EXPECT_EQ(json::parse(call("GET", "/tasks?limit=5").body)["nextCursor"], nullptr);
  auto next = call("GET", "/tasks?limit=1&before=" + cursor);
  ASSERT_EQ(next.status, 200u) << next.body;
  // The cursor is the last row's (createdMs, taskId), which the store pages by.
  EXPECT_EQ(cursor, std::to_string(agent->last_query.before_ms) + ":" + agent->last_query.before_id);
  EXPECT_EQ(agent->last_query.before_id, "task_1");
  EXPECT_GT(agent->last_query.before_ms, 0);
  for (const char* bad : {"x", "12", "12:", ":task_1", "0:task_1", "-5:task_1", "1.5:task_1"}) {
    SCOPED_TRACE(bad);
    auto r = call("GET", std::string("/tasks?before=") + bad);
    ASSERT_EQ(r.status, 400u) << r.body;
    EXPECT_NE(json::parse(r.body)["error"]["message"].get<std::string>().find("nextCursor"), std::string::npos);
  }
}

}  // namespace
}  // namespace harness::http
