// The task routes over a stub agent_manager: the wire JSON they write from the
// service's structs, and the ownership check, which compares the view's user.
#include <gtest/gtest.h>

#include "harness/agent/agent_manager.hpp"
#include "harness/http/api.hpp"
#include "harness/http/services.hpp"
#include "http/run_dispatch.hpp"

namespace harness::http {
namespace {

using json = nlohmann::json;
using agent::task_status;

// One finished task of alice's, "task_1"; every other id is unknown.
class stub_agent final : public agent::agent_manager {
 public:
  std::vector<std::string> cancelled;
  store::task_query last_query;

  static agent::task_view alices_task() {
    agent::task_view v;
    v.task_id = "task_1";
    v.user_id = "alice";
    v.conversation_id = "conv_1";
    v.task = "add 2 and 3";
    v.mode = "async";
    v.status = task_status::succeeded;
    v.result = "5";
    v.turns = 2;
    v.input_tokens = 30;
    v.output_tokens = 7;
    v.created_ms = 1764547200000;  // 2025-12-01T00:00:00.000Z
    v.started_ms = 1764547200010;
    v.finished_ms = 1764547201234;
    return v;
  }

  boost::asio::awaitable<result<agent::task_ticket>> submit(agent::task_request) override {
    co_return agent::task_ticket{"task_2", "conv_2", task_status::queued};
  }
  boost::asio::awaitable<result<agent::task_view>> wait(std::string id) override { co_return find(id, false); }
  boost::asio::awaitable<result<agent::task_view>> view(std::string id, bool with_transcript) override {
    co_return find(id, with_transcript);
  }
  boost::asio::awaitable<result<std::vector<agent::task_view>>> list(store::task_query q) override {
    last_query = q;
    co_return std::vector<agent::task_view>{alices_task()};
  }
  boost::asio::awaitable<result<agent::cancel_outcome>> cancel(std::string id) override {
    cancelled.push_back(id);
    co_return agent::cancel_outcome{id, agent::cancel_state::cancelling};
  }
  boost::asio::awaitable<result<std::shared_ptr<agent::task_event_stream>>> events(std::string, std::int64_t) override {
    co_return make_error("task_not_found", "no events here");
  }
  boost::asio::awaitable<void> shutdown(std::chrono::milliseconds) override { co_return; }
  agent::agent_stats stats() const override { return {}; }

 private:
  static result<agent::task_view> find(const std::string& id, bool with_transcript) {
    if (id != "task_1") return make_error("task_not_found", "there is no task '" + id + "'");
    auto v = alices_task();
    if (with_transcript) v.transcript = json::array({{{"role", "user"}, {"content", "add 2 and 3"}}});
    return v;
  }
};

http_request request(std::string method, std::string target) {
  http_request r;
  auto query = target.find('?');
  r.method = std::move(method);
  r.target = target;
  r.path = target.substr(0, query);
  if (query != std::string::npos) {
    auto parsed = parse_target(target);
    if (parsed) r.query = parsed->query;
  }
  r.request_id = "req_1";
  return r;
}

class TaskRoutes : public ::testing::Test {
 protected:
  TaskRoutes() { svc.agent = agent; }
  http_response call(std::string method, std::string target) {
    return run_dispatch(make_api_router(), svc, request(std::move(method), std::move(target)));
  }
  std::shared_ptr<stub_agent> agent = std::make_shared<stub_agent>();
  services svc;
};

TEST_F(TaskRoutes, TheViewIsWrittenWithEveryWireField) {
  auto r = call("GET", "/tasks/task_1?userId=alice&transcript=false");
  ASSERT_EQ(r.status, 200u) << r.body;
  EXPECT_EQ(json::parse(r.body), json::parse(R"({
    "taskId": "task_1", "userId": "alice", "conversationId": "conv_1", "status": "succeeded",
    "task": "add 2 and 3", "mode": "async", "result": "5", "turns": 2,
    "usage": {"inputTokens": 30, "outputTokens": 7}, "durationMs": 1234,
    "createdAt": "2025-12-01T00:00:00.000Z", "startedAt": "2025-12-01T00:00:00.010Z",
    "finishedAt": "2025-12-01T00:00:01.234Z"})"));
  auto with = call("GET", "/tasks/task_1");
  ASSERT_EQ(with.status, 200u);
  EXPECT_TRUE(json::parse(with.body)["transcript"].is_array());
}

TEST_F(TaskRoutes, AnotherUsersTaskIsForbiddenAndAnUnknownOneNotFound) {
  EXPECT_EQ(call("GET", "/tasks/task_1?userId=bob").status, 403u);
  EXPECT_EQ(call("GET", "/tasks/task_9?userId=alice").status, 404u);
  auto refused = call("DELETE", "/tasks/task_1?userId=bob");
  EXPECT_EQ(refused.status, 403u);
  EXPECT_TRUE(agent->cancelled.empty());
  auto ok = call("DELETE", "/tasks/task_1?userId=alice");
  ASSERT_EQ(ok.status, 202u) << ok.body;
  EXPECT_EQ(json::parse(ok.body), json::parse(R"({"taskId":"task_1","status":"cancelling"})"));
  EXPECT_EQ(agent->cancelled, std::vector<std::string>{"task_1"});
}

TEST_F(TaskRoutes, TheListParsesTheStatusAndWritesEachView) {
  auto r = call("GET", "/tasks?userId=alice&status=succeeded&limit=5");
  ASSERT_EQ(r.status, 200u) << r.body;
  auto body = json::parse(r.body);
  ASSERT_EQ(body["tasks"].size(), 1u);
  EXPECT_EQ(body["tasks"][0]["status"], "succeeded");
  EXPECT_EQ(agent->last_query.status, task_status::succeeded);
  EXPECT_EQ(agent->last_query.limit, 5u);
  // A status no task can have lists nothing, as before.
  auto none = call("GET", "/tasks?userId=alice&status=done");
  ASSERT_EQ(none.status, 200u);
  EXPECT_EQ(json::parse(none.body), json::parse(R"({"tasks":[]})"));
}

}  // namespace
}  // namespace harness::http
