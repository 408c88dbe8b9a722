// An error a service returns reaches the client with the HTTP status of its
// code and the API's one error body shape.
#include <gtest/gtest.h>

#include "harness/docker/errors.hpp"
#include "harness/execution/errors.hpp"
#include "harness/execution/execution_service.hpp"
#include "harness/http/api.hpp"
#include "harness/http/services.hpp"
#include "http/run_dispatch.hpp"

namespace harness::http {
namespace {

// Fails every call with the error the test sets.
class failing_execution final : public execution::execution_service {
 public:
  explicit failing_execution(error e) : error_(std::move(e)) {}
  boost::asio::awaitable<result<execution::execute_outcome>> execute(execution::execute_request) override {
    co_return error_;
  }
  boost::asio::awaitable<status> end_session(std::string, std::string) override { co_return error_; }
  boost::asio::awaitable<void> shutdown() override { co_return; }
  std::size_t session_count() const override { return 0; }

 private:
  error error_;
};

http_request post_execute() {
  http_request r;
  r.method = "POST";
  r.path = r.target = "/execute";
  r.headers.emplace_back("Content-Type", "application/json");
  r.body = R"({"userId":"alice","code":"1+1"})";
  r.request_id = "req_3";
  return r;
}

http_response execute_failing_with(error e) {
  services svc{core::real_clock()};
  svc.execution = std::make_shared<failing_execution>(std::move(e));
  return run_dispatch(make_api_router(), svc, post_execute());
}

TEST(ServiceErrorRoute, TheCodeSetsTheStatusAndTheBodyHasTheOneShape) {
  auto r = execute_failing_with(
      make_error(execution::errc::session_busy, "session s1 is running another block", "wait for it to finish"));
  EXPECT_EQ(r.status, 409u) << r.body;
  auto body = nlohmann::json::parse(r.body);
  EXPECT_EQ(body, (nlohmann::json{{"error",
                                   {{"code", "session_busy"},
                                    {"message", "session s1 is running another block (wait for it to finish)"}}}}));
  EXPECT_EQ(r.header("Retry-After"), std::nullopt);
}

TEST(ServiceErrorRoute, BusyAnswersWithRetryAfter) {
  auto r = execute_failing_with(make_error(execution::errc::too_many_sessions, "alice has 4 sessions"));
  EXPECT_EQ(r.status, 429u);
  EXPECT_EQ(nlohmann::json::parse(r.body)["error"]["code"], "too_many_sessions");
  EXPECT_EQ(r.header("Retry-After"), "5");
}

TEST(ServiceErrorRoute, AnErrorFromAnotherComponentKeepsItsOwnStatus) {
  // The sandbox pool could not start a container: the engine's code, 503.
  auto r = execute_failing_with(make_error(docker::errc::unreachable, "cannot reach the Docker engine"));
  EXPECT_EQ(r.status, 503u);
  EXPECT_EQ(nlohmann::json::parse(r.body)["error"]["code"], "docker_unreachable");
  EXPECT_EQ(r.header("Retry-After"), "5");
}

TEST(ServiceErrorRoute, DeleteSessionUsesTheSameMapping) {
  services svc{core::real_clock()};
  svc.execution = std::make_shared<failing_execution>(make_error(execution::errc::session_not_found, "no session s9"));
  http_request r;
  r.method = "DELETE";
  r.path = "/sessions/s9";
  r.target = "/sessions/s9?userId=alice";
  r.query["userId"] = "alice";
  r.request_id = "req_4";
  auto response = run_dispatch(make_api_router(), svc, r);
  EXPECT_EQ(response.status, 404u) << response.body;
  EXPECT_EQ(nlohmann::json::parse(response.body)["error"]["code"], "session_not_found");
}

}  // namespace
}  // namespace harness::http
