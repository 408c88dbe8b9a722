// The host bridge driving the real in-container runtime (sandbox/runtime/
// runtime.js) as a local node process over pipes: the complete protocol with
// real JavaScript, without Docker. Every test runs twice: with the protocol on
// stdio, and linked to a call socket. The Docker path is tested in tests/sandbox.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <filesystem>

#include "bridge/fake_tools.hpp"
#include "harness/bridge/call_socket.hpp"
#include "harness/bridge/runtime_session.hpp"
#include "pipe_frame_channel.hpp"
#include "support/run_sync.hpp"

extern char** environ;

namespace harness::bridge {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

// node runtime.js with its stdin and stdout as pipes; stderr inherited.
class local_runtime {
 public:
  explicit local_runtime(const fs::path& root) {
    int to_child[2], from_child[2];
    EXPECT_EQ(pipe2(to_child, O_CLOEXEC), 0);
    EXPECT_EQ(pipe2(from_child, O_CLOEXEC), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
    std::string source = std::getenv("HARNESS_SOURCE_DIR") ? std::getenv("HARNESS_SOURCE_DIR") : ".";
    std::string script = source + "/sandbox/runtime/runtime.js";
    std::vector<std::string> env_strings = {"PATH=/usr/local/bin:/usr/bin:/bin",
                                            "SANDBOX_SKILLS_DIR=" + (root / "skills").string(),
                                            "SANDBOX_WORKSPACE_DIR=" + (root / "workspace").string()};
    std::vector<char*> envp;
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string node = "/usr/bin/node";
    std::vector<char*> argv{node.data(), script.data(), nullptr};
    EXPECT_EQ(posix_spawn(&pid, node.c_str(), &actions, nullptr, argv.data(), envp.data()), 0);
    posix_spawn_file_actions_destroy(&actions);
    close(to_child[0]);
    close(from_child[1]);
    write_fd = to_child[1];
    read_fd = from_child[0];
  }
  ~local_runtime() {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  pid_t pid = -1;
  int read_fd = -1;
  int write_fd = -1;
};

// The parameter: whether the runtime is linked to a call socket.
class RuntimePipeTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    signal(SIGPIPE, SIG_IGN);  // as the server does: a dead runtime is an error value, not a signal
    root = fs::temp_directory_path() / ("bridge-it-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(root / "skills");
    fs::create_directories(root / "workspace");
    runtime = std::make_unique<local_runtime>(root);
    stdio = create_pipe_frame_channel(io.get_executor(), runtime->read_fd, runtime->write_fd);
    frame_channel* channel = stdio.get();
    ASSERT_TRUE(run(wait_for_ready(core::real_clock(), *stdio, 20s)));
    if (GetParam()) {
      // A short folder: socket paths have at most 107 bytes. A local runtime
      // finds the socket where the host made it.
      socket_dir = fs::temp_directory_path() / ("bsock-" + std::to_string(getpid()));
      auto made = call_socket::listen(io.get_executor(), core::real_clock(), socket_dir.string(), "");
      ASSERT_TRUE(made) << made.error().describe();
      auto calls = std::move(*made);
      auto linked = run(link_runtime(*stdio, *calls, 10s));
      ASSERT_TRUE(linked) << linked.error().describe();
      linked_channel = std::move(*linked);
      channel = linked_channel.get();
    }
    session = create_runtime_session(io.get_executor(), core::real_clock(), *channel, tools, identity);
    ASSERT_TRUE(run(
        session->init("s-" + std::to_string(getpid()), {{"skills", "lib/util.js", "exports.twice = (x) => 2 * x;"}})));
  }
  void TearDown() override {
    session.reset();
    linked_channel.reset();
    stdio.reset();
    runtime.reset();
    fs::remove_all(root);
    if (!socket_dir.empty()) fs::remove_all(socket_dir);
  }

  template <class T>
  T run(boost::asio::awaitable<T> work) {
    return harness::testing::run_sync(io, std::move(work));
  }
  exec_result exec(std::string code, std::chrono::milliseconds timeout = 10s) {
    return run(session->exec(std::move(code), timeout));
  }

  boost::asio::io_context io;
  fs::path root;
  fs::path socket_dir;
  std::unique_ptr<local_runtime> runtime;
  testing::fake_tools tools;
  identity_filter identity;
  std::unique_ptr<frame_channel> stdio;
  std::unique_ptr<frame_channel> linked_channel;  // the call socket, when linked
  std::unique_ptr<runtime_session> session;
};

TEST_P(RuntimePipeTest, StateCarriesAcrossBlocksAndSkillsLoad) {
  auto first = exec("const { twice } = require('" + (root / "skills/lib/util.js").string() +
                    "');\nlet count = twice(21);\nconsole.log('counted', count);\nreturn count");
  ASSERT_TRUE(first.ok) << first.error.dump();
  EXPECT_EQ(first.value, 42);
  ASSERT_EQ(first.logs.size(), 1u);
  EXPECT_EQ(first.logs[0].text, "counted 42");
  auto second = exec("return twice(count)");
  ASSERT_TRUE(second.ok) << second.error.dump();
  EXPECT_EQ(second.value, 84);
}

TEST_P(RuntimePipeTest, HelpersReachTheGatewayConcurrently) {
  auto r = exec(
      "const tools = await list_mcp_tools('echo');\n"
      "const details = await get_mcp_tool_details(tools[0].name);\n"
      "const all = await Promise.all([1, 2, 3].map((i) => callMCPTool('t__slow', {i})));\n"
      "let failed = null;\n"
      "try { await callMCPTool('t__fail', {}) } catch (e) { failed = e.message }\n"
      "return {first: tools[0].name, schema: details.inputSchema.type, all, failed}");
  ASSERT_TRUE(r.ok) << r.error.dump();
  EXPECT_EQ(r.value["first"], "t__echo");
  EXPECT_EQ(r.value["schema"], "object");
  EXPECT_EQ(r.value["all"][2], (json{{"echo", {{"i", 3}}}}));
  EXPECT_EQ(r.value["failed"], "the tool failed");
  EXPECT_EQ(tools.max_in_flight, 3);
  ASSERT_EQ(r.tool_calls.size(), 6u);
  EXPECT_EQ(r.tool_calls[0].name, "list_mcp_tools");
  EXPECT_FALSE(r.tool_calls[5].ok);
}

TEST_P(RuntimePipeTest, ErrorsComeBackWithTheAgentsStack) {
  auto r = exec("function parse(x) {\n  return JSON.parse(x);\n}\nparse('{bad');");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error["name"], "SyntaxError");
  EXPECT_NE(r.error["stack"].get<std::string>().find("agent-code.js:2"), std::string::npos) << r.error.dump();
  auto next = exec("return 'still usable'");
  EXPECT_TRUE(next.ok);
}

TEST_P(RuntimePipeTest, ChangedFilesComeBackDecoded) {
  auto r = exec("await fs.writeFile('" + (root / "workspace/report.txt").string() +
                "', 'total: 3\\n');\nawait fs.writeFile('" + (root / "workspace/blob.bin").string() +
                "', Buffer.from([0, 255, 10]));");
  ASSERT_TRUE(r.ok) << r.error.dump();
  std::map<std::string, file_change> by_path;
  for (auto& f : r.files) by_path[f.path] = f;
  ASSERT_EQ(by_path.count("report.txt"), 1u);
  EXPECT_EQ(by_path["report.txt"].content, "total: 3\n");
  EXPECT_EQ(by_path["blob.bin"].content, std::string("\0\xff\n", 3));
}

TEST_P(RuntimePipeTest, WritingRawStdoutIsAProtocolErrorNotACrash) {
  auto r = exec("process.stdout.write('oops\\n')");
  // The context's process object has no stdout; reaching the real one takes
  // require('process'), which a hostile block may do.
  auto hostile = exec("require('process').stdout.write('not a frame\\n'); await utils.sleep(50); return 1");
  if (GetParam()) {
    // Linked, stdout is no longer the protocol: the line is only output.
    EXPECT_TRUE(hostile.ok) << hostile.error.dump();
    EXPECT_FALSE(session->broken());
  } else {
    EXPECT_FALSE(hostile.ok);
    EXPECT_EQ(hostile.error["name"], "ProtocolError");
    EXPECT_TRUE(session->broken());
  }
  (void)r;
}

TEST_P(RuntimePipeTest, AnInfiniteLoopTimesOut) {
  auto r = exec("while (true) {}", 500ms);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error["name"], "TimeoutError");
}

TEST_P(RuntimePipeTest, ARuntimeThatExitsMidCallIsASandboxError) {
  auto r = exec("setTimeout(() => require('process').exit(3), 20); await callMCPTool('t__slow', {}); return 1");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error["name"], "SandboxError");
}

TEST_P(RuntimePipeTest, ACallTheBlockDidNotAwaitIsStillServed) {
  // Its frame arrives just before `done`; the host serves it before it ends the block.
  auto r = exec("callMCPTool('t__slow', {n: 7}); return 1");
  ASSERT_TRUE(r.ok) << r.error.dump();
  ASSERT_EQ(r.tool_calls.size(), 1u);
  ASSERT_EQ(tools.received_args.size(), 1u);
  EXPECT_EQ(tools.received_args[0]["n"], 7);
}

INSTANTIATE_TEST_SUITE_P(Channels, RuntimePipeTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "CallSocket" : "Stdio";
                         });

}  // namespace
}  // namespace harness::bridge
