#include <gtest/gtest.h>

#include <stdexcept>

#include "http/run_dispatch.hpp"

namespace harness::http {
namespace {

http_request make(std::string method, std::string path, std::string body = {},
                  std::string content_type = "application/json") {
  http_request r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.target = r.path;
  r.body = std::move(body);
  if (!content_type.empty()) r.headers.emplace_back("Content-Type", content_type);
  r.request_id = "req_test";
  return r;
}

nlohmann::json error_of(const http_response& r) {
  return nlohmann::json::parse(r.body).at("error");
}

class DispatchTest : public ::testing::Test {
 protected:
  services svc{core::real_clock()};
  nlohmann::json seen_body;
  router routes{{
      {"POST", "/echo",
       [this](const request_context& c) {
         seen_body = c.body;
         return json_response(200, c.body);
       },
       true},
      {"GET", "/boom", [](const request_context&) -> http_response { throw std::runtime_error("secret detail"); }},
  }};
};

TEST_F(DispatchTest, PassesParsedJsonToTheHandlerAndTagsRequestId) {
  auto r = run_dispatch(routes, svc, make("POST", "/echo", R"({"a":1})", "application/json; charset=utf-8"));
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(seen_body, (nlohmann::json{{"a", 1}}));
  EXPECT_EQ(r.header("X-Request-Id").value(), "req_test");
}

TEST_F(DispatchTest, UnknownRouteIs404) {
  auto r = run_dispatch(routes, svc, make("GET", "/missing"));
  EXPECT_EQ(r.status, 404u);
  EXPECT_EQ(error_of(r)["code"], "not_found");
}

TEST_F(DispatchTest, WrongMethodIs405WithAllow) {
  auto r = run_dispatch(routes, svc, make("GET", "/echo"));
  EXPECT_EQ(r.status, 405u);
  EXPECT_EQ(r.header("Allow").value(), "POST");
}

TEST_F(DispatchTest, WrongOrMissingContentTypeIs415) {
  EXPECT_EQ(run_dispatch(routes, svc, make("POST", "/echo", "{}", "text/plain")).status, 415u);
  auto r = run_dispatch(routes, svc, make("POST", "/echo", "{}", ""));
  EXPECT_EQ(r.status, 415u);
  EXPECT_EQ(error_of(r)["code"], "unsupported_media_type");
}

TEST_F(DispatchTest, MalformedJsonAndNonObjectAre400) {
  auto r = run_dispatch(routes, svc, make("POST", "/echo", "{\"a\":"));
  EXPECT_EQ(r.status, 400u);
  EXPECT_EQ(error_of(r)["code"], "malformed_json");
  EXPECT_EQ(error_of(run_dispatch(routes, svc, make("POST", "/echo", "[1,2]")))["code"], "invalid_body");
  EXPECT_EQ(run_dispatch(routes, svc, make("POST", "/echo", "")).status, 400u);
}

TEST_F(DispatchTest, HandlerExceptionIs500WithoutInternals) {
  auto r = run_dispatch(routes, svc, make("GET", "/boom"));
  EXPECT_EQ(r.status, 500u);
  EXPECT_EQ(r.body.find("secret detail"), std::string::npos);
  EXPECT_EQ(error_of(r)["code"], "internal_error");
}

}  // namespace
}  // namespace harness::http
