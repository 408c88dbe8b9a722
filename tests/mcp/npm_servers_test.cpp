// The registry against the real npm MCP servers over stdio, and the everything
// server over Streamable HTTP.
#include <gtest/gtest.h>

#include <fstream>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "client.hpp"
#include "harness/mcp/errors.hpp"
#include "harness/mcp/tool_registry.hpp"
#include "mcp_test_support.hpp"

namespace harness::mcp {
namespace {

namespace asio = boost::asio;
using nlohmann::json;
using testing::run;

struct NpmServers : ::testing::Test {
  asio::io_context ctx;
  std::filesystem::path root;
  std::shared_ptr<tool_registry> registry;

  void SetUp() override {
    root = std::filesystem::temp_directory_path() / ("mcp-test-" + std::to_string(::getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(root / "root");
    std::ofstream(root / "root" / "hello.txt") << "hello from the workspace\n";
    std::ofstream(root / "outside.txt") << "secret\n";
    mcp_config config;
    config.limits = testing::test_limits();
    config.servers.push_back(
        testing::node_server("fs", {testing::npm_server("server-filesystem"), (root / "root").string()}));
    auto memory = testing::node_server("memory", {testing::npm_server("server-memory")});
    memory.env["MEMORY_FILE_PATH"] = (root / "memory.jsonl").string();
    config.servers.push_back(memory);
    config.servers.push_back(testing::node_server("everything", {testing::npm_server("server-everything"), "stdio"}));
    registry = create_tool_registry(ctx.get_executor(), core::real_clock(), config);
    run(ctx, registry->start());
    for (const auto& h : registry->health_sources())
      ASSERT_TRUE(h->check().up) << h->name() << h->check().detail.dump();
  }
  void TearDown() override {
    if (registry) run(ctx, registry->stop());
    std::filesystem::remove_all(root);
  }
};

TEST_F(NpmServers, FilesystemListsReadsWritesInsideTheRootAndRefusesOutside) {
  auto found = registry->list("read file");
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0]["name"].get<std::string>().rfind("fs__read", 0), 0u) << found.dump();
  auto details = registry->details("fs__write_file");
  ASSERT_TRUE(details) << details.error().describe();
  EXPECT_TRUE((*details)["inputSchema"]["properties"].contains("path"));

  const std::string inside = (root / "root").string();
  auto listed = run(ctx, registry->call("fs__list_directory", {{"path", inside}}));
  ASSERT_TRUE(listed) << listed.error().describe();
  EXPECT_NE(listed->dump().find("hello.txt"), std::string::npos) << listed->dump();

  auto written =
      run(ctx, registry->call("fs__write_file", {{"path", inside + "/new.txt"}, {"content", "written by test"}}));
  ASSERT_TRUE(written) << written.error().describe();
  auto read = run(ctx, registry->call("fs__read_text_file", {{"path", inside + "/new.txt"}}));
  ASSERT_TRUE(read) << read.error().describe();
  EXPECT_NE(read->dump().find("written by test"), std::string::npos) << read->dump();

  auto outside = run(ctx, registry->call("fs__read_text_file", {{"path", (root / "outside.txt").string()}}));
  ASSERT_FALSE(outside);
  EXPECT_EQ(outside.error().code, harness::mcp::errc::tool_error);
  EXPECT_NE(outside.error().message.find("denied"), std::string::npos) << outside.error().message;
}

TEST_F(NpmServers, MemoryCreatesEntitiesAndReadsTheGraphBack) {
  json entities =
      json::array({{{"name", "Ada"}, {"entityType", "person"}, {"observations", {"wrote the first program"}}},
                   {{"name", "Engine"}, {"entityType", "machine"}, {"observations", json::array()}}});
  auto created = run(ctx, registry->call("memory__create_entities", {{"entities", entities}}));
  ASSERT_TRUE(created) << created.error().describe();
  auto related =
      run(ctx, registry->call("memory__create_relations",
                              {{"relations", {{{"from", "Ada"}, {"to", "Engine"}, {"relationType", "programmed"}}}}}));
  ASSERT_TRUE(related) << related.error().describe();
  auto graph = run(ctx, registry->call("memory__read_graph", json::object()));
  ASSERT_TRUE(graph) << graph.error().describe();
  ASSERT_TRUE(graph->contains("entities")) << graph->dump();
  EXPECT_EQ((*graph)["entities"].size(), 2u);
  EXPECT_EQ((*graph)["relations"][0]["relationType"], "programmed");
}

TEST_F(NpmServers, EverythingEchoAddImageLongRunningAndErrors) {
  auto echoed = run(ctx, registry->call("everything__echo", {{"message", "hi there"}}));
  ASSERT_TRUE(echoed) << echoed.error().describe();
  EXPECT_NE(echoed->dump().find("hi there"), std::string::npos);

  auto sum = run(ctx, registry->call_raw("everything__get-sum", {{"a", 2}, {"b", 40}}));
  ASSERT_TRUE(sum) << sum.error().describe();
  EXPECT_NE(sum->dump().find("42"), std::string::npos) << sum->dump();

  auto image = run(ctx, registry->call("everything__get-tiny-image", json::object()));
  ASSERT_TRUE(image) << image.error().describe();
  EXPECT_NE(image->dump().find("\"image\""), std::string::npos);
  EXPECT_NE(image->dump().find("image/png"), std::string::npos);

  // 3 steps of 0.5 s with a 1 s timeout: only the progress notifications keep it alive.
  auto slow = run(ctx, registry->call("everything__trigger-long-running-operation", {{"duration", 1.5}, {"steps", 3}},
                                      std::chrono::milliseconds(1000)));
  ASSERT_TRUE(slow) << slow.error().describe();

  auto bad = run(ctx, registry->call("everything__get-sum", {{"a", "not a number"}}));
  ASSERT_FALSE(bad);
  EXPECT_TRUE(bad.error().code == harness::mcp::errc::tool_error ||
              bad.error().code == harness::mcp::errc::jsonrpc_error)
      << bad.error().code;
}

// The shipped servers/mcp.json, as the app loads it, starts both servers from
// servers/node_modules (workspace and memory file redirected to a temp folder).
TEST(DefaultConfig, StartsFilesystemAndMemoryServersForEachUser) {
  const auto dir = std::filesystem::temp_directory_path() / ("mcp-default-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "memory");
  auto specs = mcp_setting_specs();
  core::setting_sources sources;
  sources.env["MCP_CONFIG"] = testing::source_dir() + "/servers/mcp.json";
  auto settings = core::settings::resolve(specs, sources);
  ASSERT_TRUE(settings);
  // Per-user places, as the defaults have them, but under the test's folder.
  auto env = [&](const std::string& name) -> std::optional<std::string> {
    if (name == "MCP_FS_ROOT") return (dir / "files" / "${user.id}").string();
    if (name == "MEMORY_FILE_PATH") return (dir / "memory" / "${user.id}.jsonl").string();
    return std::nullopt;
  };
  auto config = load_mcp_config(*settings, env);
  ASSERT_TRUE(config) << config.error().describe();
  asio::io_context ctx;
  auto registry = create_tool_registry(ctx.get_executor(), core::real_clock(), *config);
  run(ctx, registry->start());
  auto status = registry->status();
  EXPECT_EQ(status["servers"]["fs"]["scope"], "user") << status.dump();
  EXPECT_EQ(status["servers"]["memory"]["instances"], 0) << status.dump();
  call_deadline as_alice;
  as_alice.user = "alice";
  auto allowed = run(ctx, registry->call("fs__list_allowed_directories", json::object(), as_alice));
  ASSERT_TRUE(allowed) << allowed.error().describe();
  EXPECT_NE(allowed->dump().find((dir / "files" / "alice").string()), std::string::npos) << allowed->dump();
  EXPECT_TRUE(std::filesystem::is_directory(dir / "files" / "alice")) << "its root is made for it";
  run(ctx, registry->prepare("alice"));
  EXPECT_FALSE(registry->list_for("alice", "knowledge graph entities").empty());
  EXPECT_EQ(registry->status()["servers"]["memory"]["state"], "per_user");
  run(ctx, registry->stop());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace harness::mcp
