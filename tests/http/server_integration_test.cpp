// Starts the real mcp-harness binary on a free port and drives it over real
// TCP: every error path of the front door, keep-alive, pipelining, slow
// clients, oversized input and a graceful SIGTERM with a request in flight.
#include <gtest/gtest.h>
#include <signal.h>

#include <thread>

#include "http/server_process.hpp"
#include "support/child_process.hpp"
#include "support/raw_http.hpp"

namespace harness::testing {
namespace {

using namespace std::chrono_literals;
using env_map = std::map<std::string, std::string>;

std::string error_code(const raw_response& r) {
  return r.json()["error"]["code"].get<std::string>();
}

TEST(ServerIntegration, HealthReportsComponentsAndTurnsOkOnceTheEngineAnswers) {
  ServerProcess server;
  std::optional<raw_response> r;
  for (int i = 0; i < 200; ++i) {  // the engine's state is known after the first refresh
    r = http_call(server.port(), "GET", "/health");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->json()["status"], r->status == 200 ? "ok" : "degraded");
    if (r->status == 200) break;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->header("content-type"), "application/json");
  auto components = r->json()["components"];
  EXPECT_EQ(components["sandbox"]["status"], "up");
  EXPECT_EQ(components["sandbox"]["required"], true);
  EXPECT_EQ(components["pool"]["target"], 0);
  // No LLM is configured: said as it is, without a default URL that looks live, and not a fault.
  EXPECT_EQ(components["llm"]["status"], "not_configured");
  EXPECT_EQ(components["llm"]["required"], false);
  EXPECT_FALSE(components["llm"].contains("baseUrl"));
  EXPECT_NE(components["llm"]["reason"].get<std::string>().find("LLM_API_KEY"), std::string::npos);
}

TEST(ServerIntegration, RequestIdIsEchoedOrGeneratedAndLogged) {
  ServerProcess server;
  auto r = http_call(server.port(), "GET", "/tools");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->json()["tools"], nlohmann::json::array());
  EXPECT_EQ(r->header("x-request-id").rfind("req_", 0), 0u);

  auto echoed = http_call(server.port(), "GET", "/tools", "", "", "X-Request-Id: trace-42\r\n");
  ASSERT_TRUE(echoed);
  EXPECT_EQ(echoed->header("x-request-id"), "trace-42");
  // The access-log line of that request carries the id.
  EXPECT_TRUE(server.process().wait_for_output("[trace-42] GET /tools 200", 5s));

  auto unsafe = http_call(server.port(), "GET", "/tools", "", "", "X-Request-Id: a b\"c\r\n");
  ASSERT_TRUE(unsafe);
  EXPECT_NE(unsafe->header("x-request-id"), "a b\"c");
}

TEST(ServerIntegration, HeadHasHeadersButNoBody) {
  ServerProcess server;
  raw_connection c(server.port());
  ASSERT_TRUE(c.send("HEAD /tools HTTP/1.1\r\nHost: x\r\n\r\nGET /tools HTTP/1.1\r\nHost: x\r\n\r\n"));
  // read_response trusts Content-Length, so read the HEAD answer by hand: the
  // next bytes must be the GET's status line, not a body.
  auto head = c.read_response(5s);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_NE(head->header("content-length"), "0");
}

TEST(ServerIntegration, ErrorStatusesCarryTheJsonErrorShape) {
  ServerProcess server;
  auto not_found = http_call(server.port(), "GET", "/nope");
  ASSERT_TRUE(not_found);
  EXPECT_EQ(not_found->status, 404);
  EXPECT_EQ(error_code(*not_found), "not_found");

  auto wrong_method = http_call(server.port(), "DELETE", "/health");
  ASSERT_TRUE(wrong_method);
  EXPECT_EQ(wrong_method->status, 405);
  EXPECT_EQ(wrong_method->header("allow"), "GET, HEAD");

  auto wrong_type = http_call(server.port(), "POST", "/task", R"({"userId":"u","task":"t"})", "text/plain");
  ASSERT_TRUE(wrong_type);
  EXPECT_EQ(wrong_type->status, 415);

  auto malformed = http_call(server.port(), "POST", "/task", R"({"userId":)", "application/json");
  ASSERT_TRUE(malformed);
  EXPECT_EQ(malformed->status, 400);
  EXPECT_EQ(error_code(*malformed), "malformed_json");

  auto invalid = http_call(server.port(), "POST", "/task", R"({"userId":"no spaces","task":"t"})", "application/json");
  ASSERT_TRUE(invalid);
  EXPECT_EQ(invalid->status, 400);
  EXPECT_NE(invalid->json()["error"]["message"].get<std::string>().find("userId"), std::string::npos);

  auto valid = http_call(server.port(), "POST", "/task", R"({"userId":"u1","task":"t"})", "application/json");
  ASSERT_TRUE(valid);
  EXPECT_EQ(valid->status, 503);
  EXPECT_EQ(error_code(*valid), "agent_unavailable");
  // It names the setting to fill in.
  EXPECT_NE(valid->json()["error"]["message"].get<std::string>().find("LLM_API_KEY"), std::string::npos);
}

TEST(ServerIntegration, GarbageIsA400AndTheConnectionCloses) {
  ServerProcess server;
  raw_connection c(server.port());
  ASSERT_TRUE(c.send("THIS IS NOT HTTP\r\n\r\n"));
  auto r = c.read_response(5s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(error_code(*r), "bad_request");
  EXPECT_TRUE(c.wait_closed(5s));
}

TEST(ServerIntegration, OversizedContentLengthIsRefusedBeforeTheBodyIsSent) {
  ServerProcess server(env_map{{"HTTP_BODY_LIMIT", "4096"}});
  raw_connection c(server.port());
  ASSERT_TRUE(
      c.send("POST /task HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
             "Content-Length: 10000000\r\n\r\n"));
  auto r = c.read_response(5s);  // answered without sending a single body byte
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(error_code(*r), "body_too_large");
  EXPECT_EQ(r->header("connection"), "close");
}

TEST(ServerIntegration, OversizedChunkedBodyIsRefusedWhileReading) {
  ServerProcess server(env_map{{"HTTP_BODY_LIMIT", "4096"}});
  raw_connection c(server.port());
  ASSERT_TRUE(
      c.send("POST /task HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
             "Transfer-Encoding: chunked\r\n\r\n"));
  std::string chunk(1000, 'a');
  for (int i = 0; i < 6; ++i) c.send("3e8\r\n" + chunk + "\r\n");
  auto r = c.read_response(5s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
}

TEST(ServerIntegration, OversizedHeadersAre431) {
  ServerProcess server(env_map{{"HTTP_HEADER_LIMIT", "2048"}});
  raw_connection c(server.port());
  ASSERT_TRUE(c.send("GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(4000, 'b') + "\r\n\r\n"));
  auto r = c.read_response(5s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 431);
}

TEST(ServerIntegration, SlowLorisGets408AndIsDisconnected) {
  ServerProcess server(env_map{{"HTTP_REQUEST_TIMEOUT_MS", "400"}});
  raw_connection c(server.port());
  ASSERT_TRUE(c.send("GET /tools HTTP/1.1\r\nHost: x\r\n"));  // headers never finish
  auto r = c.read_response(5s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 408);
  EXPECT_EQ(error_code(*r), "request_timeout");
  EXPECT_TRUE(c.wait_closed(5s));
  // The server is still fine for everyone else.
  auto health = http_call(server.port(), "GET", "/tools");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

TEST(ServerIntegration, IdleKeepAliveConnectionsAreClosedQuietly) {
  ServerProcess server(env_map{{"HTTP_KEEPALIVE_TIMEOUT_MS", "300"}});
  raw_connection c(server.port());
  EXPECT_TRUE(c.wait_closed(5s));
}

TEST(ServerIntegration, KeepAliveAndPipeliningServeRequestsInOrder) {
  ServerProcess server;
  raw_connection c(server.port());
  ASSERT_TRUE(c.send("GET /tools HTTP/1.1\r\nHost: x\r\n\r\n"));
  auto first = c.read_response(5s);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200);
  // Same connection, three pipelined requests in one write.
  ASSERT_TRUE(
      c.send("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n"
             "POST /task HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
             "GET /tools HTTP/1.1\r\nHost: x\r\n\r\n"));
  auto a = c.read_response(5s);
  auto b = c.read_response(5s);
  auto d = c.read_response(5s);
  ASSERT_TRUE(a && b && d);
  EXPECT_EQ(a->status, 404);
  EXPECT_EQ(b->status, 400);
  EXPECT_EQ(d->status, 200);
}

// A 304 ends at its header block (no Content-Length, no body bytes), so the
// next answer on the same connection parses from its first byte.
TEST(ServerIntegration, ANotModifiedAnswerLeavesTheConnectionInStep) {
  ServerProcess server;
  auto page = http_call(server.port(), "GET", "/ui/");
  ASSERT_TRUE(page);
  ASSERT_EQ(page->status, 200);
  std::string etag = page->header("etag");
  ASSERT_FALSE(etag.empty());
  raw_connection c(server.port());
  ASSERT_TRUE(c.send("GET /ui/ HTTP/1.1\r\nHost: x\r\nIf-None-Match: " + etag +
                     "\r\n\r\n"
                     "GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n"));
  auto unchanged = c.read_response(5s);
  ASSERT_TRUE(unchanged);
  EXPECT_EQ(unchanged->status, 304);
  EXPECT_EQ(unchanged->header("content-length"), "");
  EXPECT_EQ(unchanged->body, "");
  auto next = c.read_response(5s);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->status, 200);
  EXPECT_EQ(next->json()["status"], "alive");
}

TEST(ServerIntegration, ExpectContinueIsHonoured) {
  ServerProcess server;
  raw_connection c(server.port());
  ASSERT_TRUE(
      c.send("POST /task HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
             "Expect: 100-continue\r\nContent-Length: 25\r\n\r\n"));
  auto go_on = c.read_response(5s, true);  // the body is sent once the server asks for it
  ASSERT_TRUE(go_on);
  EXPECT_EQ(go_on->status, 100);
  ASSERT_TRUE(c.send(R"({"userId":"u","task":"t"})"));
  auto r = c.read_response(5s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
}

// One request answered on `c`: the server has accepted the connection (it is
// not waiting in the listen backlog) and reads its next request.
void served_once(raw_connection& c) {
  ASSERT_TRUE(c.send("GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n"));
  auto r = c.read_response(5s);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200);
}

TEST(ServerIntegration, SigtermFinishesTheRequestInFlightThenExitsZero) {
  ServerProcess server(env_map{{"SHUTDOWN_GRACE_MS", "5000"}});
  raw_connection idle(server.port());  // an idle keep-alive connection: closed at once
  raw_connection busy(server.port());
  served_once(busy);  // the server has accepted it and reads its next request
  std::string body = R"({"userId":"u","task":"t"})";
  ASSERT_TRUE(busy.send("POST /task HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
                        std::to_string(body.size()) + "\r\n\r\n" + body.substr(0, 5)));
  server.process().send_signal(SIGTERM);
  EXPECT_TRUE(idle.wait_closed(5s));  // shutdown has begun
  ASSERT_TRUE(busy.send(body.substr(5)));
  auto r = busy.read_response(5s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_EQ(server.process().wait_exit(10s), 0);
  // New connections are refused once it has stopped listening.
  EXPECT_THROW(raw_connection(server.port()), std::runtime_error);
}

TEST(ServerIntegration, SigtermAfterGraceClosesStragglersAndExitsZero) {
  ServerProcess server(env_map{{"SHUTDOWN_GRACE_MS", "300"}, {"HTTP_REQUEST_TIMEOUT_MS", "60000"}});
  raw_connection straggler(server.port());
  served_once(straggler);
  ASSERT_TRUE(straggler.send("GET /tools HTTP/1.1\r\nHost: x\r\n"));  // never completes
  server.process().send_signal(SIGINT);
  EXPECT_EQ(server.process().wait_exit(10s), 0);
}

TEST(ServerIntegration, InvalidSettingFailsStartUpWithOneLine) {
  child_process bad({binary_path("src/mcp-harness"), "--port", "http"}, {{"ENV_FILE", "/dev/null"}});
  EXPECT_EQ(bad.wait_exit(10s), 2);
  EXPECT_EQ(bad.output().find("invalid PORT: 'http' is not a whole number"), 13u) << bad.output();
  EXPECT_EQ(std::count(bad.output().begin(), bad.output().end(), '\n'), 1);

  child_process unknown({binary_path("src/mcp-harness"), "--prot", "1"}, {{"ENV_FILE", "/dev/null"}});
  EXPECT_EQ(unknown.wait_exit(10s), 2);
  EXPECT_NE(unknown.output().find("unknown flag '--prot'"), std::string::npos);

  child_process missing_env_file({binary_path("src/mcp-harness")}, {{"ENV_FILE", "/nonexistent/.env"}});
  EXPECT_EQ(missing_env_file.wait_exit(10s), 2);
  EXPECT_NE(missing_env_file.output().find("ENV_FILE"), std::string::npos);
}

TEST(ServerIntegration, HelpListsEverySetting) {
  child_process help({binary_path("src/mcp-harness"), "--help"});
  EXPECT_EQ(help.wait_exit(10s), 0);
  for (const char* name : {"PORT", "--port", "HOST", "HTTP_BODY_LIMIT", "LOG_FORMAT", "SHUTDOWN_GRACE_MS"}) {
    EXPECT_NE(help.output().find(name), std::string::npos) << name;
  }
}

TEST(ServerIntegration, JsonLogFormatWritesOneObjectPerLine) {
  ServerProcess server(env_map{{"LOG_FORMAT", "json"}});
  ASSERT_TRUE(http_call(server.port(), "GET", "/tools", "", "", "X-Request-Id: json-1\r\n"));
  auto line = server.process().wait_for_output("\"requestId\":\"json-1\"", 5s);
  ASSERT_TRUE(line);
  auto parsed = nlohmann::json::parse(*line);
  EXPECT_EQ(parsed["level"], "info");
  EXPECT_NE(parsed["msg"].get<std::string>().find("GET /tools 200"), std::string::npos);
}

TEST(ServerIntegration, DotenvFileIsReadAndFlagsWin) {
  char path[] = "/tmp/harness-env-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::string text = "LOG_FORMAT=json\nHTTP_BODY_LIMIT=2048\n";
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  ServerProcess server(env_map{{"ENV_FILE", path}}, {"--log-format", "text"});
  auto r = http_call(server.port(), "POST", "/task", std::string(3000, ' '), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);                                             // from .env
  EXPECT_TRUE(server.process().wait_for_output(" POST /task 413", 5s));  // text format: the flag won
  unlink(path);
}

}  // namespace
}  // namespace harness::testing
