#include <gtest/gtest.h>

#include <thread>

#include "harness/core/version.hpp"
#include "harness/http/api.hpp"
#include "harness/http/services.hpp"
#include "http/run_dispatch.hpp"
#include "support/fake_clock.hpp"

namespace harness::http {
namespace {

class fixed_health final : public core::health_source {
 public:
  fixed_health(std::string name, bool up, bool required) : name_(std::move(name)), up_(up), required_(required) {}
  std::string name() const override { return name_; }
  core::component_health check() const override {
    return {up_, required_, {{"reason", up_ ? "fine" : "engine not reachable"}}};
  }

 private:
  std::string name_;
  bool up_, required_;
};

http_request post_task(std::string body) {
  http_request r;
  r.method = "POST";
  r.path = r.target = "/task";
  r.headers.emplace_back("Content-Type", "application/json");
  r.body = std::move(body);
  r.request_id = "req_2";
  return r;
}

TEST(HealthRoute, OkWhenEveryRequiredComponentIsUp) {
  services svc{core::real_clock()};
  svc.health.push_back(std::make_shared<fixed_health>("docker", true, true));
  svc.health.push_back(std::make_shared<fixed_health>("llm", false, false));  // optional and down: still ok
  auto r = run_dispatch(make_api_router(), svc, get("/health"));
  EXPECT_EQ(r.status, 200u);
  auto body = nlohmann::json::parse(r.body);
  EXPECT_EQ(body["status"], "ok");
  EXPECT_EQ(body["version"], core::version());
  EXPECT_TRUE(body["uptimeSeconds"].is_number_integer());
  EXPECT_EQ(body["components"]["docker"]["status"], "up");
  EXPECT_EQ(body["components"]["llm"]["status"], "down");
  EXPECT_EQ(body["components"]["llm"]["required"], false);
}

TEST(HealthRoute, DegradedAnd503WhenARequiredComponentIsDown) {
  services svc{core::real_clock()};
  svc.health.push_back(std::make_shared<fixed_health>("docker", false, true));
  auto r = run_dispatch(make_api_router(), svc, get("/health"));
  EXPECT_EQ(r.status, 503u);
  auto body = nlohmann::json::parse(r.body);
  EXPECT_EQ(body["status"], "degraded");
  EXPECT_EQ(body["components"]["docker"]["reason"], "engine not reachable");
}

// A component whose state the test flips, counting how often it is asked.
class switchable_health final : public core::health_source {
 public:
  std::string name() const override { return "docker"; }
  core::component_health check() const override {
    ++checks;
    return {up, true, nlohmann::json::object()};
  }
  bool up = true;
  mutable int checks = 0;
};

TEST(HealthRoute, AFloodOfProbesReusesOneDocumentForAShortWhile) {
  harness::testing::fake_clock clock;
  services svc{clock};
  auto docker = std::make_shared<switchable_health>();
  svc.health.push_back(docker);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(run_dispatch(make_api_router(), svc, get("/health")).status, 200u);
  EXPECT_EQ(docker->checks, 1);
  // A change shows once the reused answer is older than 100 ms.
  docker->up = false;
  clock.advance(std::chrono::milliseconds(99));
  EXPECT_EQ(run_dispatch(make_api_router(), svc, get("/health")).status, 200u);
  clock.advance(std::chrono::milliseconds(1));
  auto r = run_dispatch(make_api_router(), svc, get("/health"));
  EXPECT_EQ(r.status, 503u);
  EXPECT_EQ(nlohmann::json::parse(r.body)["components"]["docker"]["status"], "down");
  EXPECT_EQ(docker->checks, 2);
  EXPECT_EQ(r.header("Cache-Control"), "no-store");
}

struct bad_task_case {
  std::string body;
  std::string expected_fragment;
};

class TaskValidation : public ::testing::TestWithParam<bad_task_case> {};

TEST_P(TaskValidation, NamesTheFieldAndTheRule) {
  services svc{core::real_clock()};
  svc.limits.task_max_chars = 10;
  auto r = run_dispatch(make_api_router(), svc, post_task(GetParam().body));
  EXPECT_EQ(r.status, 400u) << r.body;
  auto message = nlohmann::json::parse(r.body)["error"]["message"].get<std::string>();
  EXPECT_NE(message.find(GetParam().expected_fragment), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(
    BadBodies, TaskValidation,
    ::testing::Values(bad_task_case{R"({"task":"x"})", "'userId' is required"},
                      bad_task_case{R"({"userId":5,"task":"x"})", "'userId' must be a string"},
                      bad_task_case{R"({"userId":"","task":"x"})", "'userId' must be 1-64 characters"},
                      bad_task_case{R"({"userId":"a/b","task":"x"})", "'userId' must be 1-64 characters"},
                      bad_task_case{R"({"userId":")" + std::string(65, 'a') + R"(","task":"x"})", "1-64"},
                      bad_task_case{R"({"userId":"u"})", "'task' is required"},
                      bad_task_case{R"({"userId":"u","task":"   "})", "'task' must not be empty"},
                      bad_task_case{R"({"userId":"u","task":["x"]})", "'task' must be a string"},
                      bad_task_case{R"({"userId":"u","task":"01234567890"})", "the limit is 10"},
                      bad_task_case{R"({"userId":"u","task":"x","mode":"later"})", "'mode' must be one of"},
                      bad_task_case{R"({"userId":"u","task":"x","conversationId":"../x"})", "'conversationId'"},
                      bad_task_case{R"({"usrId":"u","task":"x"})", "unknown field 'usrId'"}));

TEST(TaskRoute, ValidTaskIs503NamingWhatIsMissingWithoutAnAgent) {
  services svc{core::real_clock()};
  svc.agent_unavailable = "no LLM is configured: set LLM_API_KEY";
  auto r =
      run_dispatch(make_api_router(), svc, post_task(R"({"userId":"user-1","task":"sum the numbers","mode":"sync"})"));
  EXPECT_EQ(r.status, 503u);
  auto body = nlohmann::json::parse(r.body);
  EXPECT_EQ(body["error"]["code"], "agent_unavailable");
  EXPECT_EQ(body["error"]["message"], "no LLM is configured: set LLM_API_KEY");
  EXPECT_FALSE(r.header("Retry-After").value_or("").empty());
  for (const char* path : {"/tasks", "/tasks/task_1", "/tasks/task_1/events"}) {
    auto request = get(path);
    request.query["userId"] = "u";
    EXPECT_EQ(run_dispatch(make_api_router(), svc, request).status, 503u) << path;
  }
}

TEST(TaskRoute, RestorePiiMustBeABoolean) {
  services svc{core::real_clock()};
  auto r = run_dispatch(make_api_router(), svc, post_task(R"({"userId":"u","task":"x","restorePii":"no"})"));
  EXPECT_EQ(r.status, 400u);
  EXPECT_NE(r.body.find("'restorePii' must be true or false"), std::string::npos) << r.body;
}

}  // namespace
}  // namespace harness::http
