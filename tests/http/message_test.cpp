#include <gtest/gtest.h>

#include "harness/http/errors.hpp"
#include "harness/http/message.hpp"

namespace harness::http {
namespace {

TEST(ParseTarget, DecodesPathAndQuery) {
  auto t = parse_target("/tasks/a%20b?userId=u%2F1&q=x+y&flag&=empty");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->path, "/tasks/a b");
  EXPECT_EQ(t->query.at("userId"), "u/1");
  EXPECT_EQ(t->query.at("q"), "x y");
  EXPECT_EQ(t->query.at("flag"), "");
}

TEST(ParseTarget, RejectsBadEscapesAndNonOriginForm) {
  EXPECT_FALSE(parse_target("/a%2"));
  EXPECT_FALSE(parse_target("/a%zz"));
  EXPECT_FALSE(parse_target("/a?b=%"));
  EXPECT_FALSE(parse_target("http://example/a"));
  EXPECT_FALSE(parse_target(""));
  EXPECT_EQ(parse_target("/a%zz").error().code, harness::http::errc::bad_target);
}

TEST(ParseTarget, RejectsAQueryParameterGivenTwice) {
  auto twice = parse_target("/tasks?userId=alice&limit=2&userId=root");
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().code, harness::http::errc::bad_target);
  EXPECT_EQ(twice.error().message, "the query parameter 'userId' is given twice; send it once");
  // Equal once decoded is the same parameter.
  EXPECT_FALSE(parse_target("/tasks?userId=alice&user%49d=root"));
  EXPECT_TRUE(parse_target("/tasks?userId=alice&userid=root"));
}

TEST(Message, HeadersAreCaseInsensitiveAndSetReplaces) {
  http_request request;
  request.headers = {{"Content-Type", "application/json"}};
  EXPECT_EQ(request.header("content-type").value(), "application/json");
  EXPECT_FALSE(request.header("accept"));
  http_response response;
  response.set_header("X-A", "1").set_header("x-a", "2");
  ASSERT_EQ(response.headers.size(), 1u);
  EXPECT_EQ(response.header("X-A").value(), "2");
}

TEST(Message, SplitFieldListTrimsAndDropsEmptyElements) {
  EXPECT_EQ(split_field_list(" gzip ,\tchunked"), (std::vector<std::string_view>{"gzip", "chunked"}));
  EXPECT_EQ(split_field_list(", ,a,,"), (std::vector<std::string_view>{"a"}));
  EXPECT_TRUE(split_field_list("").empty());
}

TEST(Message, ErrorResponseHasTheOneErrorShape) {
  auto r = error_response(harness::http::errc::not_found, "no such thing");
  EXPECT_EQ(r.status, 404u);
  EXPECT_EQ(r.header("Content-Type").value(), "application/json");
  auto body = nlohmann::json::parse(r.body);
  EXPECT_EQ(body, (nlohmann::json{{"error", {{"code", "not_found"}, {"message", "no such thing"}}}}));
}

TEST(Message, JsonResponseSurvivesInvalidUtf8) {
  auto r = json_response(200, {{"text", std::string("bad \xff byte")}});
  EXPECT_NO_THROW(nlohmann::json::parse(r.body));
}

}  // namespace
}  // namespace harness::http
