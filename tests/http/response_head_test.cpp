#include "response_head.hpp"

#include <gtest/gtest.h>

namespace harness::http {
namespace {

std::string head_of(const http_response& response, unsigned version = 11, bool keep_alive = true) {
  std::string out = "left over from the answer before";
  write_response_head(out, response, version, keep_alive);
  return out;
}

http_response answer(unsigned status, std::string body) {
  http_response response;
  response.status = status;
  response.body = std::move(body);
  response.set_header("Content-Type", "application/json");
  response.set_header("X-Request-Id", "req_1");
  return response;
}

TEST(ResponseHead, StatusLineHeadersInOrderAndContentLength) {
  EXPECT_EQ(head_of(answer(200, R"({"ok":true})")),
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Request-Id: req_1\r\n"
            "Content-Length: 11\r\n\r\n");
  EXPECT_EQ(head_of(answer(404, "")).rfind("HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n", 0), 0u);
  EXPECT_NE(head_of(answer(404, "")).find("\r\nContent-Length: 0\r\n\r\n"), std::string::npos);
}

TEST(ResponseHead, ConnectionHeaderOnlyWhereTheVersionsDefaultDiffers) {
  auto response = answer(200, "x");
  EXPECT_EQ(head_of(response, 11, true).find("Connection"), std::string::npos);
  EXPECT_NE(head_of(response, 11, false).find("\r\nConnection: close\r\n\r\n"), std::string::npos);
  auto old = head_of(response, 10, true);
  EXPECT_EQ(old.rfind("HTTP/1.0 200 OK\r\n", 0), 0u) << old;
  EXPECT_NE(old.find("\r\nConnection: keep-alive\r\n\r\n"), std::string::npos);
  EXPECT_EQ(head_of(response, 10, false).find("Connection"), std::string::npos);
}

TEST(ResponseHead, NoContentLengthWhereTheStatusHasNoBody) {
  for (unsigned status : {204u, 304u, 101u}) {
    EXPECT_FALSE(status_has_body(status));
    EXPECT_EQ(head_of(answer(status, "ignored")).find("Content-Length"), std::string::npos) << status;
  }
  for (unsigned status : {200u, 202u, 400u, 503u}) EXPECT_TRUE(status_has_body(status)) << status;
}

TEST(ResponseHead, FramingIsTheServersAlone) {
  auto response = answer(200, "four");
  response.set_header("Content-Length", "999");
  response.set_header("transfer-encoding", "chunked");
  response.set_header("Connection", "upgrade");
  auto head = head_of(response);
  EXPECT_EQ(head.find("999"), std::string::npos) << head;
  EXPECT_EQ(head.find("chunked"), std::string::npos) << head;
  EXPECT_EQ(head.find("upgrade"), std::string::npos) << head;
  EXPECT_NE(head.find("\r\nContent-Length: 4\r\n"), std::string::npos) << head;
}

TEST(ResponseHead, LineBreaksInAValueCannotAddAHeader) {
  auto response = answer(200, "");
  response.set_header("Location", std::string("/next\r\nSet-Cookie: a=b\n\0x", 25));
  auto head = head_of(response);
  EXPECT_NE(head.find("\r\nLocation: /next  Set-Cookie: a=b  x\r\n"), std::string::npos) << head;
  EXPECT_EQ(head.find("\r\nSet-Cookie"), std::string::npos) << head;
  // The same for a name.
  http_response named = answer(200, "");
  named.headers.emplace_back("X-A\r\nSet-Cookie", "b");
  head = head_of(named);
  EXPECT_NE(head.find("\r\nX-A  Set-Cookie: b\r\n"), std::string::npos) << head;
  EXPECT_EQ(head.find("\r\nSet-Cookie"), std::string::npos) << head;
}

}  // namespace
}  // namespace harness::http
