#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/llm/errors.hpp"
#include "llm/scripted_transport.hpp"
#include "llm/test_support.hpp"
#include "record_replay.hpp"

namespace harness::llm {
namespace {

namespace fs = std::filesystem;

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".jsonl")).string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(LlmRecordReplay, RecordsEachExchangeAndReplaysItInOrder) {
  auto config = test::test_config("openai", "http://h/v1");
  auto path = temp_path("llm-record");
  fs::remove(path);
  auto t = std::make_shared<test::scripted_transport>();
  t->push_json(
      200,
      R"({"choices":[{"message":{"content":"first )" + config.api_key +
          R"(","tool_calls":[{"id":"c1","type":"function","function":{"name":"execute_code","arguments":"{\"code\":\"return 1\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":11,"completion_tokens":3}})");
  t->push_json(401, R"({"error":{"message":"bad key )" + config.api_key + R"("}})");
  {
    auto recorder = create_recording_provider(core::real_clock(), create_openai_provider(core::real_clock(), config, t),
                                              path, config.model, config.api_key);
    ASSERT_TRUE(recorder) << recorder.error().describe();
    auto request = test::simple_request("task with " + config.api_key);
    ASSERT_TRUE(test::run_sync((*recorder)->complete(request)));
    ASSERT_FALSE(test::run_sync((*recorder)->complete(request)));
  }
  std::string file = slurp(path);
  EXPECT_EQ(file.find(config.api_key), std::string::npos) << file;
  EXPECT_NE(file.find("\"provider\":\"openai\""), std::string::npos);

  auto replay = create_replay_provider(path);
  ASSERT_TRUE(replay) << replay.error().describe();
  EXPECT_EQ((*replay)->name(), "replay");
  auto first = test::run_sync((*replay)->complete(test::simple_request()));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->tool_calls.at(0).arguments["code"], "return 1");
  EXPECT_EQ(first->usage.input_tokens, 11);
  auto second = test::run_sync((*replay)->complete(test::simple_request()));
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, harness::llm::errc::unauthorized);
  auto third = test::run_sync((*replay)->complete(test::simple_request()));
  ASSERT_FALSE(third);
  EXPECT_EQ(third.error().code, harness::llm::errc::replay_exhausted);
  fs::remove(path);
}

TEST(LlmRecordReplay, FactoryBuildsReplayAndRecorderFromConfig) {
  auto path = temp_path("llm-factory");
  {
    std::ofstream out(path);
    out << R"({"v":1,"request":{"messages":[]},"turn":{"text":"done","toolCalls":[],"usage":{"inputTokens":1,"outputTokens":1},"stopReason":"stop"}})"
        << "\n\n";
  }
  llm_config config;
  config.provider = "replay";
  config.replay_file = path;
  auto p = create_llm_provider(core::real_clock(), config, nullptr);
  ASSERT_TRUE(p) << p.error().describe();
  auto turn = test::run_sync((*p)->complete(test::simple_request()));
  ASSERT_TRUE(turn);
  EXPECT_EQ(turn->text, "done");
  fs::remove(path);
}

TEST(LlmRecordReplay, BadFilesAreClearErrors) {
  auto missing = create_replay_provider("/nonexistent/llm.jsonl");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("/nonexistent/llm.jsonl"), std::string::npos);
  auto path = temp_path("llm-bad");
  {
    std::ofstream out(path);
    out << R"({"turn":{"text":"ok"}})"
        << "\n"
        << "not json\n";
  }
  auto bad = create_replay_provider(path);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("line 2"), std::string::npos);
  fs::remove(path);
  auto unwritable =
      create_recording_provider(core::real_clock(),
                                create_openai_provider(core::real_clock(), test::test_config("openai", "http://h/v1"),
                                                       std::make_shared<test::scripted_transport>()),
                                "/nonexistent/dir/rec.jsonl", "m", "");
  EXPECT_FALSE(unwritable);
}

}  // namespace
}  // namespace harness::llm
