// The fake LLM server as a separate process: what end-to-end tests that start
// the whole harness use. Script from a file, control endpoint, request log.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "harness/llm/errors.hpp"
#include "harness/llm/provider.hpp"
#include "harness/net/http_client.hpp"
#include "llm/test_support.hpp"

namespace harness::llm {
namespace {

// Starts the executable and reads its "listening http://127.0.0.1:PORT" line.
struct fake_process {
  pid_t pid = -1;
  std::string base;

  explicit fake_process(const std::vector<std::string>& args) {
    int fds[2];
    if (pipe(fds) != 0) return;
    pid = fork();
    if (pid == 0) {
      dup2(fds[1], STDOUT_FILENO);
      close(fds[0]);
      close(fds[1]);
      std::vector<char*> argv{const_cast<char*>(FAKE_LLM_SERVER_EXE)};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(FAKE_LLM_SERVER_EXE, argv.data());
      _exit(127);
    }
    close(fds[1]);
    FILE* out = fdopen(fds[0], "r");
    char line[256] = {};
    if (out && std::fgets(line, sizeof line, out)) {
      std::string text(line);
      if (auto at = text.find("http://"); at != std::string::npos)
        base = text.substr(at, text.find_first_of("\r\n") - at);
    }
    if (out) std::fclose(out);
  }
  ~fake_process() {
    if (pid > 0) {
      kill(pid, SIGTERM);
      int status = 0;
      waitpid(pid, &status, 0);
    }
  }
};

TEST(LlmFakeServerProcess, AnswersFromAScriptFileAndLogsRequests) {
  auto script =
      (std::filesystem::temp_directory_path() / ("fake-llm-script-" + std::to_string(getpid()) + ".json")).string();
  {
    std::ofstream out(script);
    out << R"([{"reply":{"text":"from the file","usage":{"inputTokens":3,"outputTokens":4}}}])";
  }
  fake_process fake({"--script", script, "--api-key", "k-123"});
  ASSERT_FALSE(fake.base.empty()) << "the fake did not report its address";
  auto c = test::test_config("openai", fake.base + "/v1");
  c.api_key = "k-123";
  auto p = create_openai_provider(core::real_clock(), c, create_net_transport(harness::net::start_curl_loop(), {}));
  auto turn = test::run_sync(p->complete(test::simple_request()));
  ASSERT_TRUE(turn) << turn.error().describe();
  EXPECT_EQ(turn->text, "from the file");
  EXPECT_EQ(turn->usage.output_tokens, 4);
  // The script is used up: the next answer is the fake's own clear 400.
  auto exhausted = test::run_sync(p->complete(test::simple_request()));
  ASSERT_FALSE(exhausted);
  EXPECT_NE(exhausted.error().message.find("no scripted reply left"), std::string::npos);
  std::filesystem::remove(script);
}

TEST(LlmFakeServerProcess, ControlEndpointScriptsRepliesAndReportsRequests) {
  fake_process fake({});
  ASSERT_FALSE(fake.base.empty()) << "the fake did not report its address";
  auto transport = create_net_transport(harness::net::start_curl_loop(), {});
  auto post = [&](const std::string& path, const std::string& body) {
    harness::net::request r;
    r.url = fake.base + path;
    r.headers = {{"Content-Type", "application/json"}};
    r.body = body;
    return test::run_sync(transport->send(r));
  };
  auto scripted =
      post("/_fake/script", R"([{"reply":{"toolCalls":[{"name":"execute_code","arguments":{"code":"return 5"}}]}},
                                           {"error":{"status":403,"message":"not for you"}}])");
  ASSERT_TRUE(scripted) << scripted.error().describe();
  EXPECT_EQ(nlohmann::json::parse(scripted->body)["stepsLeft"], 2);

  auto c = test::test_config("anthropic", fake.base);
  auto p = create_anthropic_provider(core::real_clock(), c, transport);
  auto turn = test::run_sync(p->complete(test::simple_request("from the control endpoint")));
  ASSERT_TRUE(turn) << turn.error().describe();
  EXPECT_EQ(turn->tool_calls.at(0).arguments["code"], "return 5");
  auto denied = test::run_sync(p->complete(test::simple_request()));
  ASSERT_FALSE(denied);
  EXPECT_EQ(denied.error().code, harness::llm::errc::forbidden);

  auto log = post("/_fake/requests", "");
  ASSERT_TRUE(log);
  auto requests = nlohmann::json::parse(log->body);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0]["path"], "/v1/messages");
  EXPECT_EQ(requests[0]["headers"]["x-api-key"], c.api_key);
  EXPECT_EQ(requests[0]["body"]["messages"][0]["content"][0]["text"], "from the control endpoint");
  ASSERT_TRUE(post("/_fake/reset", ""));
  EXPECT_EQ(nlohmann::json::parse(post("/_fake/requests", "")->body).size(), 0u);
}

}  // namespace
}  // namespace harness::llm
