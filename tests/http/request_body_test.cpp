#include "request_body.hpp"

#include <gtest/gtest.h>

namespace harness::http {
namespace {

http_request post(std::string body, header_list headers = {{"Content-Type", "application/json"}}) {
  http_request r;
  r.method = "POST";
  r.path = r.target = "/task";
  r.headers = std::move(headers);
  r.body = std::move(body);
  return r;
}

// The refusal of `request` as (status, error object); a test failure when accepted.
std::pair<unsigned, nlohmann::json> refusal(const http_request& request) {
  nlohmann::json body;
  auto refused = parse_json_body(request, body);
  EXPECT_TRUE(refused) << "accepted: " << request.body;
  if (!refused) return {0, {}};
  return {refused->status, nlohmann::json::parse(refused->body).at("error")};
}

TEST(RequestBody, FillsTheObject) {
  nlohmann::json body;
  EXPECT_FALSE(parse_json_body(post(R"({"userId":"u"})"), body));
  EXPECT_EQ(body, (nlohmann::json{{"userId", "u"}}));
}

TEST(RequestBody, ContentTypeMustBeJson) {
  auto [status, error] = refusal(post("{}", {{"Content-Type", "text/plain"}}));
  EXPECT_EQ(status, 415u);
  EXPECT_EQ(error["code"], "unsupported_media_type");
  EXPECT_EQ(refusal(post("{}", {})).first, 415u);
}

TEST(RequestBody, ContentEncodingOtherThanIdentityIs415NamingIt) {
  nlohmann::json body;
  auto refused =
      parse_json_body(post("{}", {{"Content-Type", "application/json"}, {"Content-Encoding", "gzip"}}), body);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 415u);
  EXPECT_EQ(refused->header("Accept-Encoding").value(), "identity");
  auto error = nlohmann::json::parse(refused->body).at("error");
  EXPECT_EQ(error["code"], "unsupported_media_type");
  EXPECT_NE(error["message"].get<std::string>().find("Content-Encoding 'gzip'"), std::string::npos) << error;

  // Every coding of every line counts; identity alone is no coding at all.
  auto second_line = refusal(post(
      "{}",
      {{"Content-Type", "application/json"}, {"Content-Encoding", "identity"}, {"content-encoding", "identity, br"}}));
  EXPECT_NE(second_line.second["message"].get<std::string>().find("'br'"), std::string::npos);
  EXPECT_FALSE(
      parse_json_body(post("{}", {{"Content-Type", "application/json"}, {"Content-Encoding", "Identity"}}), body));
}

TEST(RequestBody, EmptyBodyIsNamedAsSuch) {
  auto [status, error] = refusal(post(" \r\n"));
  EXPECT_EQ(status, 400u);
  EXPECT_EQ(error["code"], "malformed_json");
  EXPECT_EQ(error["message"], "the body is empty; send a JSON object");
}

TEST(RequestBody, StrictParseRefusalsAre400WithTheirCode) {
  auto trailing = refusal(post(std::string("{\"a\":1}\0garbage", 15)));
  EXPECT_EQ(trailing.first, 400u);
  EXPECT_EQ(trailing.second["code"], "malformed_json");
  auto duplicate = refusal(post(R"({"userId":"a","userId":"b"})"));
  EXPECT_EQ(duplicate.first, 400u);
  EXPECT_EQ(duplicate.second["code"], "invalid_body");
  EXPECT_EQ(refusal(post("[1]")).second["message"], "the body must be a JSON object");
}

}  // namespace
}  // namespace harness::http
