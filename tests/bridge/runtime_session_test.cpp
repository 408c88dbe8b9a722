// The host side of the protocol against a scripted runtime: happy paths, and
// every way a hostile or broken runtime can misbehave.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>

#include "bridge/fake_channel.hpp"
#include "bridge/fake_tools.hpp"
#include "harness/bridge/errors.hpp"
#include "harness/bridge/runtime_session.hpp"
#include "support/run_sync.hpp"

namespace harness::bridge {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

class RuntimeSessionTest : public ::testing::Test {
 protected:
  boost::asio::io_context io;
  testing::fake_channel channel{io.get_executor()};
  testing::fake_tools tools;
  identity_filter identity;
  std::unique_ptr<runtime_session> session =
      create_runtime_session(io.get_executor(), core::real_clock(), channel, tools, identity);
  std::string exec_of_test_;
  std::vector<json> replies_;

  template <class T>
  T run(boost::asio::awaitable<T> work) {
    return harness::testing::run_sync(io, std::move(work));
  }

  exec_result exec(std::string code, std::chrono::milliseconds timeout = 2s) {
    return run(session->exec(std::move(code), timeout));
  }

  // The id of the exec frame the host just wrote.
  static std::string exec_id_of(const std::string& line) { return json::parse(line)["id"]; }

  // The runtime answers the next exec with `calls` calls of `tool` at once,
  // then `done` once every call has its reply.
  void answer_with_calls(int calls, const std::string& tool, const json& args) {
    channel.respond = [this, calls, tool, args, replies = 0, id = std::string()](const std::string& line) mutable {
      auto frame = json::parse(line);
      if (frame["type"] == "exec") {
        id = frame["id"];
        for (int i = 1; i <= calls; ++i) {
          channel.push(
              json{{"type", "call"}, {"id", i}, {"exec", id}, {"op", "call_tool"}, {"name", tool}, {"args", args}}
                  .dump());
        }
      } else if (frame["type"] == "reply" && ++replies == calls) {
        channel.push(json{{"type", "done"}, {"exec", id}, {"ok", true}}.dump());
      }
    };
  }
};

TEST_F(RuntimeSessionTest, ReadyInitAndASimpleExec) {
  channel.push(R"({"type":"ready","node":"v20"})");
  EXPECT_TRUE(run(session->wait_ready(1s)));
  EXPECT_TRUE(run(session->init("s1", {{"skills", "a/SKILL.md", "bytes\x01"}})));
  auto init = json::parse(channel.written.back());
  EXPECT_EQ(init["type"], "init");
  EXPECT_EQ(init["session"], "s1");
  EXPECT_EQ(init["files"][0]["content"], "Ynl0ZXMB");
  EXPECT_EQ(init["files"][0]["encoding"], "base64");

  channel.respond = [&](const std::string& line) {
    auto id = exec_id_of(line);
    channel.push(json{{"type", "log"}, {"exec", id}, {"level", "info"}, {"text", "hello"}}.dump());
    channel.push(json{{"type", "done"},
                      {"exec", id},
                      {"ok", true},
                      {"value", {{"n", 2}}},
                      {"files", {{{"root", "workspace"}, {"path", "o.txt"}, {"op", "write"}, {"content", "aGk="}}}}}
                     .dump());
  };
  auto r = exec("return {n: 2}");
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.value, (json{{"n", 2}}));
  ASSERT_EQ(r.logs.size(), 1u);
  EXPECT_EQ(r.logs[0].text, "hello");
  ASSERT_EQ(r.files.size(), 1u);
  EXPECT_EQ(r.files[0].content, "hi");
  EXPECT_FALSE(session->broken());
}

// A tool's error often echoes the (restored) arguments it got: its text goes
// through the filter on the way in, exactly like a result.
TEST_F(RuntimeSessionTest, ToolErrorsGoThroughTheFilterLikeResults) {
  testing::marking_filter marks;
  auto filtered = create_runtime_session(io.get_executor(), core::real_clock(), channel, tools, marks, {});
  channel.respond = [&](const std::string& line) {
    auto frame = json::parse(line);
    if (frame["type"] == "exec") {
      exec_of_test_ = frame["id"];
      channel.push(
          json{{"type", "call"}, {"id", 1}, {"exec", exec_of_test_}, {"op", "call_tool"}, {"name", "t__fail"}}.dump());
    } else if (frame["type"] == "reply") {
      replies_.push_back(frame);
      channel.push(json{{"type", "done"}, {"exec", exec_of_test_}, {"ok", true}}.dump());
    }
  };
  auto r = run(filtered->exec("await callMCPTool('t__fail', {})", 2s));
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(replies_.size(), 1u);
  EXPECT_EQ(replies_[0]["ok"], false);
  EXPECT_EQ(replies_[0]["error"]["filtered_in"]["message"], "the tool failed") << replies_[0].dump();
}

TEST_F(RuntimeSessionTest, ReadyTimesOutWhenTheRuntimeNeverStarts) {
  auto st = run(session->wait_ready(50ms));
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, harness::bridge::errc::sandbox_timeout);
}

TEST_F(RuntimeSessionTest, CallsGoThroughTheGatewayAndTheFilterBothWays) {
  testing::marking_filter marks;
  session_limits recording;
  recording.record_call_args = true;
  auto filtered = create_runtime_session(io.get_executor(), core::real_clock(), channel, tools, marks, recording);
  channel.respond = [&](const std::string& line) {
    auto frame = json::parse(line);
    if (frame["type"] == "exec") {
      channel.push(json{{"type", "call"},
                        {"id", 1},
                        {"exec", frame["id"]},
                        {"op", "call_tool"},
                        {"name", "t__echo"},
                        {"args", {{"email", "[EMAIL_1]"}}}}
                       .dump());
      exec_of_test_ = frame["id"];
    } else if (frame["type"] == "reply") {
      replies_.push_back(frame);
      channel.push(json{{"type", "done"}, {"exec", exec_of_test_}, {"ok", true}}.dump());
    }
  };
  auto r = run(filtered->exec("await callMCPTool('t__echo', {...})", 2s));
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(tools.received_args.size(), 1u);
  EXPECT_EQ(tools.received_args[0]["filtered_out"], true);  // arguments passed out_of_sandbox
  ASSERT_EQ(replies_.size(), 1u);
  EXPECT_EQ(replies_[0]["ok"], true);
  EXPECT_TRUE(replies_[0]["result"].contains("filtered_in"));  // results passed into_sandbox
  ASSERT_EQ(r.tool_calls.size(), 1u);
  EXPECT_EQ(r.tool_calls[0].name, "t__echo");
  EXPECT_TRUE(r.tool_calls[0].ok);
  // The record keeps the arguments as the code sent them (before the filter), and the reply's size.
  EXPECT_EQ(r.tool_calls[0].args_json, R"({"email":"[EMAIL_1]"})");
  EXPECT_EQ(r.tool_calls[0].args_bytes, r.tool_calls[0].args_json.size());
  EXPECT_EQ(r.tool_calls[0].reply_bytes, replies_[0].dump().size());
}

TEST_F(RuntimeSessionTest, TheRecordOfManyLargeCallsKeepsABoundedPartOfTheirArguments) {
  // 100 calls of 20 KB each: the record keeps the start of each while the
  // block's budget lasts, then only their sizes.
  const std::string big(20000, 'x');
  const int calls = 100;
  channel.max_line = 64 * 1024;
  session_limits recording;
  recording.record_call_args = true;
  session = create_runtime_session(io.get_executor(), core::real_clock(), channel, tools, identity, recording);
  answer_with_calls(calls, "t__echo", {{"s", big}});
  auto r = exec("for (...) await callMCPTool('t__echo', {s: big})");
  ASSERT_TRUE(r.ok) << r.error.dump();
  ASSERT_EQ(r.tool_calls.size(), static_cast<std::size_t>(calls));
  std::size_t kept = 0;
  for (const auto& call : r.tool_calls) {
    EXPECT_EQ(call.args_bytes, big.size() + 8);  // {"s":"..."}
    EXPECT_LE(call.args_json.size(), max_recorded_args_bytes);
    kept += call.args_json.size();
  }
  EXPECT_EQ(r.tool_calls.front().args_json.size(), max_recorded_args_bytes);
  EXPECT_TRUE(r.tool_calls.back().args_json.empty());
  EXPECT_LE(kept, recorded_args_budget);
}

TEST_F(RuntimeSessionTest, WithoutRecordCallArgsTheRecordHasNoArguments) {
  answer_with_calls(1, "t__echo", {{"a", 1}});
  auto r = exec("await callMCPTool('t__echo', {a: 1})");
  ASSERT_EQ(r.tool_calls.size(), 1u);
  EXPECT_TRUE(r.tool_calls[0].args_json.empty());
  EXPECT_EQ(r.tool_calls[0].args_bytes, 0u);
  EXPECT_GT(r.tool_calls[0].reply_bytes, 0u);
}

TEST_F(RuntimeSessionTest, ConcurrentCallsAreServedConcurrently) {
  answer_with_calls(4, "t__slow", {{"i", 1}});
  auto r = exec("await Promise.all(...)");
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(tools.max_in_flight, 4);
  EXPECT_EQ(r.tool_calls.size(), 4u);
}

TEST_F(RuntimeSessionTest, RepliesThatQueueBehindAWriteGoOutTogetherInOrder) {
  channel.slow_writes = true;
  answer_with_calls(5, "t__echo", {{"i", 1}});
  auto r = exec("await Promise.all(...)");
  ASSERT_TRUE(r.ok) << r.error.dump();
  std::vector<int> ids;
  for (const auto& line : channel.written) {
    auto frame = json::parse(line);
    if (frame["type"] == "reply") ids.push_back(frame["id"].get<int>());
  }
  EXPECT_EQ(ids, (std::vector<int>{1, 2, 3, 4, 5}));
  // The exec, the first reply, then the four that queued behind it in one write.
  EXPECT_EQ(channel.writes, 3u);
}

TEST_F(RuntimeSessionTest, ToolErrorsAndMalformedCallsBecomeErrorReplies) {
  std::vector<json> replies;
  std::string id;
  channel.respond = [&](const std::string& line) {
    auto frame = json::parse(line);
    if (frame["type"] == "exec") {
      id = frame["id"];
      channel.push(json{{"type", "call"}, {"id", 1}, {"exec", id}, {"op", "call_tool"}, {"name", "t__fail"}}.dump());
      channel.push(json{{"type", "call"}, {"id", 2}, {"exec", id}, {"op", "call_tool"}}.dump());
      channel.push(json{{"type", "call"}, {"id", 3}, {"exec", id}, {"op", "rm_rf"}, {"name", "x"}}.dump());
      channel.push(
          json{{"type", "call"}, {"id", 4}, {"exec", "x999"}, {"op", "call_tool"}, {"name", "t__echo"}}.dump());
    } else if (frame["type"] == "reply") {
      replies.push_back(frame);
      if (replies.size() == 4) channel.push(json{{"type", "done"}, {"exec", id}, {"ok", true}}.dump());
    }
  };
  auto r = exec("...");
  ASSERT_EQ(replies.size(), 4u);
  std::map<int, json> by_id;
  for (auto& reply : replies) by_id[reply["id"].get<int>()] = reply;
  EXPECT_EQ(by_id[1]["error"]["message"], "the tool failed");
  EXPECT_EQ(by_id[2]["error"]["message"], "a tool name (string) is required");
  EXPECT_EQ(by_id[3]["error"]["message"], "unknown helper operation 'rm_rf'");
  EXPECT_EQ(by_id[4]["error"]["code"], "stale_call");
  EXPECT_EQ(tools.received_args.size(), 1u);  // only the well-formed, current call reached a tool
}

TEST_F(RuntimeSessionTest, ALineThatIsNotAFrameFailsTheExecAndBreaksTheSession) {
  channel.respond = [&](const std::string&) { channel.push("Hello from process.stdout.write"); };
  auto r = exec("process.stdout.write('Hello...')");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error["name"], "ProtocolError");
  EXPECT_EQ(r.failure, failure_kind::protocol);
  EXPECT_NE(r.error["message"].get<std::string>().find("not a protocol frame"), std::string::npos);
  EXPECT_TRUE(session->broken());
  auto after = exec("return 1");
  EXPECT_EQ(after.error["name"], "SandboxError");
  EXPECT_EQ(after.failure, failure_kind::sandbox);
}

// A frame nested 400,000 arrays deep is refused while parsing (before any
// code copies or prints it, which recurse per level): the exec fails as a
// protocol error, the sandbox is given up, the process stays up.
TEST_F(RuntimeSessionTest, AFrameNestedTooDeepIsAProtocolError) {
  channel.max_line = 1 << 20;  // the real channel's limit is the frame limit (16 MiB by default)
  channel.respond = [&](const std::string&) {
    channel.push(R"({"type":"done","exec":"x1","ok":true,"value":)" + std::string(400000, '[') +
                 std::string(400000, ']') + "}");
  };
  auto r = exec("return deep");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error["name"], "ProtocolError");
  EXPECT_EQ(r.failure, failure_kind::protocol);
  EXPECT_NE(r.error["message"].get<std::string>().find("nests deeper than 256 levels"), std::string::npos)
      << r.error.dump();
  EXPECT_TRUE(session->broken());
}

TEST_F(RuntimeSessionTest, InvalidUtf8AndNonObjectJsonAreProtocolErrors) {
  channel.respond = [&](const std::string&) { channel.push("{\"type\":\"log\",\"text\":\"\xff\xfe\"}"); };
  EXPECT_EQ(exec("x").error["name"], "ProtocolError");
  testing::fake_channel second(io.get_executor());
  auto s2 = create_runtime_session(io.get_executor(), core::real_clock(), second, tools, identity);
  second.respond = [&](const std::string&) { second.push("[1,2,3]"); };
  EXPECT_EQ(run(s2->exec("x", 1s)).error["name"], "ProtocolError");
}

TEST_F(RuntimeSessionTest, OversizedFrameIsAProtocolError) {
  channel.respond = [&](const std::string&) { channel.push(std::string(5000, 'x')); };
  auto r = exec("x");
  EXPECT_EQ(r.error["name"], "ProtocolError");
  EXPECT_EQ(r.failure, failure_kind::protocol);
  EXPECT_TRUE(session->broken());
}

TEST_F(RuntimeSessionTest, RuntimeDyingMidCallIsASandboxError) {
  channel.respond = [&](const std::string& line) {
    auto frame = json::parse(line);
    if (frame["type"] == "exec") {
      channel.push(
          json{{"type", "call"}, {"id", 1}, {"exec", frame["id"]}, {"op", "call_tool"}, {"name", "t__slow"}}.dump());
      channel.close();
    }
  };
  auto r = exec("await callMCPTool('t__slow')");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error["name"], "SandboxError");
  EXPECT_EQ(r.failure, failure_kind::sandbox);
  EXPECT_TRUE(session->broken());
}

TEST_F(RuntimeSessionTest, ASilentRuntimeTimesOut) {
  auto r = exec("while (true) {}", 100ms);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error["name"], "TimeoutError");
  EXPECT_EQ(r.failure, failure_kind::timeout);
  EXPECT_NE(r.error["message"].get<std::string>().find("within 100 ms"), std::string::npos);
  EXPECT_TRUE(session->broken());
}

TEST_F(RuntimeSessionTest, StaleDoneAndForeignLogsAreIgnoredAndLogsAreCapped) {
  session_limits limits;
  limits.log_bytes = 10;
  auto capped = create_runtime_session(io.get_executor(), core::real_clock(), channel, tools, identity, limits);
  channel.respond = [&](const std::string& line) {
    auto id = exec_id_of(line);
    channel.push(json{{"type", "done"}, {"exec", "x0"}, {"ok", true}, {"value", "stale"}}.dump());
    channel.push(json{{"type", "log"}, {"exec", "x0"}, {"text", "foreign"}}.dump());
    channel.push(json{{"type", "log"}, {"exec", id}, {"text", "123456"}}.dump());
    channel.push(json{{"type", "log"}, {"exec", id}, {"text", "789012"}}.dump());  // over the cap: dropped
    channel.push(
        json{{"type", "done"}, {"exec", id}, {"ok", false}, {"error", {{"name", "TypeError"}, {"message", "m"}}}}
            .dump());
  };
  auto r = run(capped->exec("x", 1s));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error["name"], "TypeError");
  ASSERT_EQ(r.logs.size(), 2u);
  EXPECT_EQ(r.logs[0].text, "123456");
  EXPECT_EQ(r.logs[1].text, "[log output truncated at 10 bytes]");  // the host says so once
}

// Frames of the wrong shape from hostile code (issue: one late frame wedged a
// session for good): fields of another type read as absent, and the session
// goes on.
TEST_F(RuntimeSessionTest, FieldsOfTheWrongTypeNeitherThrowNorBreakTheSession) {
  std::vector<json> replies;
  std::string id;
  channel.respond = [&](const std::string& line) {
    auto frame = json::parse(line);
    if (frame["type"] == "exec") {
      id = frame["id"];
      channel.push(R"({"type":"log","exec":null,"text":"late"})");
      channel.push(R"({"type":"log","exec":7,"level":[],"text":{}})");
      channel.push(json{{"type", "log"}, {"exec", id}, {"level", 5}, {"text", "kept"}}.dump());
      channel.push(R"({"type":"done","exec":null,"ok":true})");
      channel.push(R"({"type":"call","id":1,"exec":null,"op":"call_tool","name":"t__echo"})");
      channel.push(json{{"type", "call"}, {"id", 2}, {"exec", id}, {"op", 3}, {"name", "t__echo"}}.dump());
      channel.push(json{{"type", "call"}, {"id", 3}, {"exec", id}, {"op", "call_tool"}, {"name", {{"x", 1}}}}.dump());
    } else if (frame["type"] == "reply") {
      replies.push_back(frame);
      if (replies.size() == 3) {
        channel.push(
            json{{"type", "done"},
                 {"exec", id},
                 {"ok", "yes"},
                 {"error", {{"name", 1}, {"stack", false}}},
                 {"files", {{{"root", "workspace"}, {"path", "a"}, {"op", "write"}, {"size", "big"}, {"content", 5}}}}}
                .dump());
      }
    }
  };
  auto r = exec("...");
  EXPECT_FALSE(r.ok);  // "ok" that is not true is not success
  EXPECT_EQ(r.error, (json{{"name", "Error"}, {"message", ""}}));
  ASSERT_EQ(r.logs.size(), 1u);
  EXPECT_EQ(r.logs[0].text, "kept");
  EXPECT_EQ(r.logs[0].level, "info");
  ASSERT_EQ(replies.size(), 3u);
  std::map<int, json> by_id;
  for (auto& reply : replies) by_id[reply["id"].get<int>()] = reply;
  EXPECT_EQ(by_id[1]["error"]["code"], "stale_call");
  EXPECT_EQ(by_id[2]["error"]["code"], "bad_call");
  EXPECT_EQ(by_id[3]["error"]["code"], "bad_call");
  EXPECT_TRUE(tools.received_args.empty());
  EXPECT_FALSE(session->broken());

  // And the session runs its next block.
  channel.respond = [&](const std::string& line) {
    channel.push(json{{"type", "done"}, {"exec", exec_id_of(line)}, {"ok", true}, {"value", 2}}.dump());
  };
  auto next = exec("return 2");
  EXPECT_TRUE(next.ok);
  EXPECT_EQ(next.value, 2);
}

TEST_F(RuntimeSessionTest, AFrameTypeThatDoesNotBelongInABlockIsAProtocolError) {
  channel.respond = [&](const std::string&) { channel.push(R"({"type":"ready"})"); };
  auto r = exec("x");
  EXPECT_EQ(r.error["name"], "ProtocolError");
  EXPECT_EQ(r.failure, failure_kind::protocol);
  EXPECT_NE(r.error["message"].get<std::string>().find("'ready' frame"), std::string::npos) << r.error.dump();
  EXPECT_TRUE(session->broken());
}

// A call left by an earlier block, read while the next block runs, is refused
// at once and does not hold up that block (it used to wait for the deadline).
TEST_F(RuntimeSessionTest, AStaleCallIsRefusedAtOnceAndTheBlockEndsOnTime) {
  std::vector<json> replies;
  channel.respond = [&](const std::string& line) {
    auto frame = json::parse(line);
    if (frame["type"] == "exec") {
      channel.push(json{{"type", "call"}, {"id", 9}, {"exec", "x0"}, {"op", "call_tool"}, {"name", "t__slow"}}.dump());
    } else if (frame["type"] == "reply") {
      replies.push_back(frame);
      channel.push(json{{"type", "done"}, {"exec", exec_id_of(channel.written.front())}, {"ok", true}}.dump());
    }
  };
  // A deadline of an hour: were the stale call waited for, the test would hang.
  auto r = exec("return 1", 3600s);
  EXPECT_TRUE(r.ok) << r.error.dump();
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0]["error"]["code"], "stale_call");
  EXPECT_FALSE(session->broken());
}

TEST_F(RuntimeSessionTest, ToolCallsGetTheTimeLeftInTheBlockLessAMargin) {
  channel.respond = [&](const std::string& line) {
    auto frame = json::parse(line);
    if (frame["type"] == "exec") {
      channel.push(
          json{{"type", "call"}, {"id", 1}, {"exec", frame["id"]}, {"op", "call_tool"}, {"name", "t__echo"}}.dump());
    } else if (frame["type"] == "reply") {
      channel.push(json{{"type", "done"}, {"exec", exec_id_of(channel.written.front())}, {"ok", true}}.dump());
    }
  };
  auto before = std::chrono::steady_clock::now();
  auto r = exec("await callMCPTool('t__echo')", 20s);
  EXPECT_TRUE(r.ok);
  ASSERT_EQ(tools.received_deadlines.size(), 1u);
  // The block's deadline (20 s from its start) less a margin of 1 s.
  EXPECT_LE(tools.received_deadlines[0], before + 19s + 1s);
  EXPECT_GE(tools.received_deadlines[0], before + 19s - 1s);
  EXPECT_LE(tools.received_deadlines[0], std::chrono::steady_clock::now() + 19s);
}

TEST_F(RuntimeSessionTest, PutSendsFilesAndWaitsForTheirDone) {
  channel.respond = [&](const std::string& line) {
    auto frame = json::parse(line);
    ASSERT_EQ(frame["type"], "put");
    EXPECT_EQ(frame["files"][0]["path"], "observations/turn-1.txt");
    EXPECT_EQ(frame["files"][0]["content"], "aGk=");
    channel.push(json{{"type", "log"}, {"exec", "x0"}, {"text", "late"}}.dump());
    channel.push(json{{"type", "done"}, {"exec", frame["id"]}, {"ok", true}, {"files", json::array()}}.dump());
  };
  EXPECT_TRUE(run(session->put({{"workspace", "observations/turn-1.txt", "hi"}}, 1s)));
  channel.respond = [&](const std::string& line) {
    auto frame = json::parse(line);
    channel.push(json{{"type", "done"},
                      {"exec", frame["id"]},
                      {"ok", false},
                      {"error", {{"name", "PutError"}, {"message", "file path escapes workspace: ../x"}}}}
                     .dump());
  };
  auto refused = run(session->put({{"workspace", "../x", ""}}, 1s));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, harness::bridge::errc::sandbox_put_failed);
  EXPECT_NE(refused.error().message.find("escapes workspace"), std::string::npos);
  EXPECT_FALSE(session->broken());
}

}  // namespace
}  // namespace harness::bridge
