#include <gtest/gtest.h>

#include "harness/http/router.hpp"

namespace harness::http {
namespace {

http_response ok(const request_context&) {
  return http_response{};
}

router sample() {
  return router({
      {"GET", "/health", ok},
      {"POST", "/task", ok, true},
      {"GET", "/tasks/{id}", ok},
      {"DELETE", "/tasks/{id}", ok},
      {"GET", "/tasks/{id}/files/{path...}", ok},
  });
}

TEST(Router, MatchesLiteralAndParameterSegments) {
  auto r = sample();
  auto m = r.match("GET", "/tasks/t1");
  ASSERT_NE(m.found, nullptr);
  EXPECT_EQ(m.found->pattern, "/tasks/{id}");
  EXPECT_EQ(m.params.at("id"), "t1");
  EXPECT_EQ(r.match("DELETE", "/tasks/t1").found->method, "DELETE");
}

TEST(Router, RestParameterTakesTheRemainingPath) {
  auto m = sample().match("GET", "/tasks/t1/files/a/b/c.txt");
  ASSERT_NE(m.found, nullptr);
  EXPECT_EQ(m.params.at("path"), "a/b/c.txt");
  EXPECT_EQ(sample().match("GET", "/tasks/t1/files/").found, nullptr);
}

TEST(Router, UnknownPathHasNoAllowedMethods) {
  auto m = sample().match("GET", "/nope");
  EXPECT_EQ(m.found, nullptr);
  EXPECT_TRUE(m.allowed.empty());
  EXPECT_EQ(sample().match("GET", "/tasks").found, nullptr);
  EXPECT_EQ(sample().match("GET", "/tasks/").found, nullptr);
  EXPECT_EQ(sample().match("GET", "/health/extra").found, nullptr);
}

TEST(Router, WrongMethodListsTheAllowedOnes) {
  auto m = sample().match("PUT", "/tasks/t1");
  EXPECT_EQ(m.found, nullptr);
  EXPECT_EQ(m.allowed, (std::vector<std::string>{"GET", "HEAD", "DELETE"}));
}

TEST(Router, HeadMatchesGetRoutes) {
  auto r = sample();
  auto m = r.match("HEAD", "/health");
  ASSERT_NE(m.found, nullptr);
  EXPECT_EQ(m.found->method, "GET");
}

}  // namespace
}  // namespace harness::http
