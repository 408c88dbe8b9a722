// The real server over real TCP against input two parsers could read two ways:
// bytes after the JSON value, repeated keys and query parameters, numbers
// beyond a double, content and transfer codings it does not implement,
// malformed framing headers.
#include <gtest/gtest.h>

#include "http/server_process.hpp"
#include "support/raw_http.hpp"

namespace harness::testing {
namespace {

using namespace std::chrono_literals;
using namespace std::string_literals;

class StrictParsing : public ::testing::Test {
 protected:
  // One server for the suite: every case is one request that leaves no state.
  static void SetUpTestSuite() { server_ = new ServerProcess(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  static raw_response post_task(const std::string& body, const std::string& extra_headers = {}) {
    auto r = http_call(server_->port(), "POST", "/task", body, "application/json", extra_headers);
    if (!r) throw std::runtime_error("no response");
    return *r;
  }

  // Sends raw bytes on a fresh connection; the one response, and whether the
  // server then closed without answering anything else.
  static std::pair<raw_response, bool> send_raw(const std::string& bytes) {
    raw_connection c(server_->port());
    if (!c.send(bytes)) throw std::runtime_error("send failed");
    auto r = c.read_response(5s);
    if (!r) throw std::runtime_error("no response");
    return {*r, c.wait_closed(5s)};
  }

  static ServerProcess* server_;
};

ServerProcess* StrictParsing::server_ = nullptr;

void expect_error(const raw_response& r, int status, const std::string& code, const std::string& message_part) {
  EXPECT_EQ(r.status, status) << r.body;
  auto error = r.json()["error"];
  EXPECT_EQ(error["code"], code) << r.body;
  EXPECT_NE(error["message"].get<std::string>().find(message_part), std::string::npos) << r.body;
  EXPECT_EQ(r.header("content-type"), "application/json");
}

const std::string post_head = "POST /task HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";
const std::string task_body = R"({"userId":"u","task":"t"})";  // 25 bytes
const std::string task_chunk = "19\r\n" + task_body + "\r\n0\r\n\r\n";

TEST_F(StrictParsing, ValidBodyStillReachesTheHandler) {
  // 503: the handler ran and found no LLM configured.
  expect_error(post_task(task_body), 503, "agent_unavailable", "LLM_API_KEY");
  expect_error(send_raw(post_head + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + task_chunk).first, 503,
               "agent_unavailable", "LLM_API_KEY");
}

TEST_F(StrictParsing, NulAndGarbageAfterTheBodyAre400) {
  expect_error(post_task(task_body + "\0garbage"s), 400, "malformed_json",
               "more follows it (a NUL byte at byte offset 25)");
  expect_error(post_task(task_body + "\n" + task_body), 400, "malformed_json", "('{' at byte offset 26)");
}

TEST_F(StrictParsing, DuplicateKeysAre400NamingTheirPath) {
  expect_error(post_task(R"({"userId":"u","task":"t","userId":"admin"})"), 400, "invalid_body",
               "the key 'userId' appears twice");
  expect_error(post_task(R"({"userId":"u","task":"t","mode":{"x":[{"p":1},{"p":1,"p":2}]}})"), 400, "invalid_body",
               "the key 'mode.x[1].p' appears twice");
}

TEST_F(StrictParsing, NumberBeyondADoubleIs400WithItsOffset) {
  expect_error(post_task(R"({"userId":"u","task":"t","n":1e400})"), 400, "invalid_body",
               "the number 1e400 at byte offset 29 is out of a double's range");
  expect_error(post_task(R"({"userId":"u","n":)" + std::string(400, '1') + "}"), 400, "invalid_body",
               "at byte offset 18 is out of a double's range");
}

TEST_F(StrictParsing, ContentEncodingIs415NamingIt) {
  auto r = post_task(task_body, "Content-Encoding: gzip\r\n");
  expect_error(r, 415, "unsupported_media_type", "Content-Encoding 'gzip'");
  EXPECT_EQ(r.header("accept-encoding"), "identity");
}

TEST_F(StrictParsing, UnimplementedTransferCodingIs501AndCloses) {
  auto [r, closed] = send_raw(post_head + "Transfer-Encoding: gzip, chunked\r\n\r\n" + task_chunk);
  expect_error(r, 501, "not_implemented", "the transfer coding 'gzip' is not implemented");
  EXPECT_EQ(r.header("connection"), "close");
  EXPECT_TRUE(closed);
}

TEST_F(StrictParsing, ChunkedNotLastIs400AndTheBodyIsNeverReadAsARequest) {
  // Beast alone takes "chunked, gzip" for "no body" and would serve the bytes
  // after the header as a second request: the classic smuggling shape.
  auto smuggled = "GET /tools HTTP/1.1\r\nHost: x\r\n\r\n"s;
  auto [r, closed] = send_raw(post_head + "Transfer-Encoding: chunked, gzip\r\n\r\n" + smuggled);
  expect_error(r, 400, "bad_request", "chunked must be the last transfer coding");
  EXPECT_TRUE(closed);  // and nothing answered the smuggled GET
}

TEST_F(StrictParsing, ChunkedTwiceIs400) {
  auto [r, closed] = send_raw(post_head + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n");
  EXPECT_EQ(r.status, 400) << r.body;
  auto [listed, listed_closed] = send_raw(post_head + "Transfer-Encoding: chunked, chunked\r\n\r\n" + task_chunk);
  expect_error(listed, 400, "bad_request", "chunked is applied more than once");
  EXPECT_TRUE(closed && listed_closed);
}

TEST_F(StrictParsing, TransferEncodingOnHttp10Is400) {
  auto [r, closed] = send_raw(
      "POST /task HTTP/1.0\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: chunked\r\n\r\n" +
      task_chunk);
  expect_error(r, 400, "bad_request", "HTTP/1.0 has no transfer codings");
  EXPECT_TRUE(closed);
}

TEST_F(StrictParsing, QueryParameterGivenTwiceIs400) {
  auto r = http_call(server_->port(), "GET", "/tasks?userId=alice&user%49d=root");
  ASSERT_TRUE(r);
  expect_error(*r, 400, "bad_target", "the query parameter 'userId' is given twice");
}

TEST_F(StrictParsing, ContentLengthWithASignIs400) {
  auto [r, closed] = send_raw(post_head + "Content-Length: +25\r\n\r\n" + task_body);
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(r.json()["error"]["code"], "bad_request");
  EXPECT_TRUE(closed);
}

}  // namespace
}  // namespace harness::testing
