// User-scoped servers ("scope": "user") against the real npm servers: each
// user gets their own process, with their own data; idle instances stop;
// the cap on instances holds (idle ones make room, busy ones refuse).
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/mcp/errors.hpp"
#include "harness/mcp/tool_registry.hpp"
#include "mcp_test_support.hpp"
#include "support/captured_log.hpp"

namespace harness::mcp {
namespace {

namespace asio = boost::asio;
using nlohmann::json;
using testing::run;

constexpr std::string_view user = user_id_placeholder;

// Users' secrets as a map (the store-backed one is tested in tests/secrets).
class map_secrets final : public secret_source {
 public:
  explicit map_secrets(std::map<std::string, std::map<std::string, std::string>> values) : values_(std::move(values)) {}
  asio::awaitable<result<std::map<std::string, std::string>>> values(std::string who,
                                                                     std::vector<std::string> names) override {
    std::map<std::string, std::string> out;
    for (const auto& name : names) {
      auto found = values_[who].find(name);
      if (found != values_[who].end()) out.insert(*found);
    }
    co_return out;
  }

 private:
  std::map<std::string, std::map<std::string, std::string>> values_;
};

struct UserServers : ::testing::Test {
  asio::io_context ctx;
  std::filesystem::path root;
  std::shared_ptr<tool_registry> registry;
  mcp_config config;
  std::shared_ptr<secret_source> secrets;  // where ${secret:NAME} values come from; none by default

  void SetUp() override {
    root = std::filesystem::temp_directory_path() / ("mcp-users-" + std::to_string(::getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(root);
    config.limits = testing::test_limits();
    auto fs = testing::node_server(
        "fs", {testing::npm_server("server-filesystem"), (root / "files" / std::string(user)).string()});
    fs.scope = server_scope::user;
    fs.directories = {(root / "files" / std::string(user)).string()};
    config.servers.push_back(fs);
    auto memory = testing::node_server("memory", {testing::npm_server("server-memory")});
    memory.scope = server_scope::user;
    memory.env["MEMORY_FILE_PATH"] = (root / "memory" / (std::string(user) + ".jsonl")).string();
    memory.directories = {(root / "memory").string()};
    config.servers.push_back(memory);
  }
  void start() {
    registry = create_tool_registry(ctx.get_executor(), core::real_clock(), config, nullptr, {}, secrets);
    run(ctx, registry->start());
  }
  void TearDown() override {
    if (registry) run(ctx, registry->stop());
    std::filesystem::remove_all(root);
  }

  result<json> call_as(const std::string& who, const std::string& tool, json args) {
    call_deadline deadline;
    deadline.user = who;
    return run(ctx, registry->call(tool, std::move(args), deadline));
  }
  json status_of(const std::string& server) { return registry->status()["servers"][server]; }
  json cap_health() {
    for (const auto& source : registry->health_sources()) {
      if (source->name() == "mcp.user_instances") return source->check().detail;
    }
    return nullptr;
  }
  void sleep_for(std::chrono::milliseconds ms) {
    run(ctx, [&]() -> asio::awaitable<void> {
      asio::steady_timer timer(ctx, ms);
      co_await timer.async_wait(asio::use_awaitable);
    }());
  }
};

TEST_F(UserServers, EachUserHasTheirOwnProcessAndData) {
  start();
  EXPECT_EQ(status_of("memory")["instances"], 0) << "nothing starts before a user uses it";

  json entity = {
      {"entities",
       json::array({{{"name", "Alice's plan"}, {"entityType", "plan"}, {"observations", {"launch on Tuesday"}}}})}};
  auto created = call_as("alice", "memory__create_entities", entity);
  ASSERT_TRUE(created) << created.error().describe();
  const std::string alice_root = (root / "files" / "alice").string();
  auto written = call_as("alice", "fs__write_file", {{"path", alice_root + "/notes.txt"}, {"content", "alice only"}});
  ASSERT_TRUE(written) << written.error().describe();

  auto bob_graph = call_as("bob", "memory__read_graph", json::object());
  ASSERT_TRUE(bob_graph) << bob_graph.error().describe();
  EXPECT_EQ(bob_graph->dump().find("launch on Tuesday"), std::string::npos) << bob_graph->dump();
  auto bob_search = call_as("bob", "memory__search_nodes", {{"query", "plan"}});
  ASSERT_TRUE(bob_search) << bob_search.error().describe();
  EXPECT_EQ(bob_search->dump().find("Alice"), std::string::npos) << bob_search->dump();
  auto alice_graph = call_as("alice", "memory__read_graph", json::object());
  ASSERT_TRUE(alice_graph) << alice_graph.error().describe();
  EXPECT_NE(alice_graph->dump().find("launch on Tuesday"), std::string::npos) << alice_graph->dump();

  // Bob's filesystem instance is rooted in his own folder: Alice's file is outside it.
  auto stolen = call_as("bob", "fs__read_text_file", {{"path", alice_root + "/notes.txt"}});
  ASSERT_FALSE(stolen);
  EXPECT_EQ(stolen.error().code, errc::tool_error) << stolen.error().describe();
  auto bob_list = call_as("bob", "fs__list_directory", {{"path", (root / "files" / "bob").string()}});
  ASSERT_TRUE(bob_list) << bob_list.error().describe();
  EXPECT_EQ(bob_list->dump().find("notes.txt"), std::string::npos) << bob_list->dump();

  // Two processes per server, and nothing in the status names a user.
  auto memory = status_of("memory");
  EXPECT_EQ(memory["instances"], 2) << memory.dump();
  ASSERT_EQ(memory["pids"].size(), 2u) << memory.dump();
  EXPECT_NE(memory["pids"][0], memory["pids"][1]);
  const std::string everything = registry->status().dump() + cap_health().dump();
  EXPECT_EQ(everything.find("alice"), std::string::npos) << everything;
  EXPECT_EQ(everything.find("bob"), std::string::npos) << everything;
  EXPECT_TRUE(std::filesystem::exists(root / "memory" / "alice.jsonl"));
}

TEST_F(UserServers, ACallWithoutAUserOrWithAnUnsafeIdIsRefused) {
  start();
  auto nobody = run(ctx, registry->call("memory__read_graph", json::object()));
  ASSERT_FALSE(nobody);
  EXPECT_EQ(nobody.error().code, errc::server_unavailable) << nobody.error().describe();
  EXPECT_NE(nobody.error().message.find("one instance per user"), std::string::npos) << nobody.error().message;
  for (const std::string& bad : std::vector<std::string>{"..", "a/b", "x y", std::string(65, 'a')}) {
    auto refused = call_as(bad, "memory__read_graph", json::object());
    ASSERT_FALSE(refused) << bad;
    EXPECT_EQ(refused.error().code, errc::invalid_arguments) << bad;
  }
  EXPECT_EQ(status_of("memory")["instances"], 0);
  EXPECT_FALSE(std::filesystem::exists(root / "files" / "x y"));
}

TEST_F(UserServers, OneInstanceTeachesTheToolListToEveryUser) {
  start();
  auto before = registry->list_for("carol", "");
  EXPECT_EQ(before.dump().find("memory__"), std::string::npos) << "no instance has run yet: " << before.dump();
  run(ctx, registry->prepare("carol"));
  EXPECT_NE(registry->list_for("carol", "").dump().find("memory__read_graph"), std::string::npos);
  EXPECT_EQ(status_of("memory")["instances"], 1);

  // Dave sees the tools (and their details) without an instance of his own.
  EXPECT_NE(registry->list_for("dave", "").dump().find("fs__read_text_file"), std::string::npos);
  auto details = registry->details_for("dave", "memory__create_entities");
  ASSERT_TRUE(details) << details.error().describe();
  EXPECT_TRUE((*details)["inputSchema"]["properties"].contains("entities"));
  run(ctx, registry->prepare("dave"));
  EXPECT_EQ(status_of("memory")["instances"], 1) << "listing does not start one instance per user";
}

TEST_F(UserServers, IdleInstancesStopAndComeBackOnTheNextCall) {
  config.user_servers.idle = std::chrono::milliseconds(300);
  start();
  auto first = call_as("erin", "memory__read_graph", json::object());
  ASSERT_TRUE(first) << first.error().describe();
  const int pid = status_of("memory")["pids"][0].get<int>();
  for (int i = 0; i < 100 && status_of("memory")["instances"] != 0; ++i) sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(status_of("memory")["instances"], 0) << status_of("memory").dump();
  EXPECT_TRUE(testing::wait_until_gone(ctx, pid));
  EXPECT_GE(cap_health()["stoppedIdle"].get<int>(), 1);

  auto again = call_as("erin", "memory__read_graph", json::object());
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(status_of("memory")["instances"], 1);
}

TEST_F(UserServers, TheCapStopsTheIdlestInstanceAndRefusesWhenAllAreBusy) {
  config.user_servers.max_instances = 1;
  config.servers.push_back(testing::node_server("everything", {testing::npm_server("server-everything"), "stdio"}));
  config.servers.back().scope = server_scope::user;
  start();
  ASSERT_TRUE(call_as("frank", "memory__read_graph", json::object()));
  ASSERT_TRUE(call_as("grace", "memory__read_graph", json::object())) << "frank's idle instance makes room";
  EXPECT_EQ(cap_health()["instances"], 1);
  EXPECT_EQ(cap_health()["evicted"], 1);

  // Grace's call keeps her instance busy: Frank's call finds no room.
  std::optional<result<json>> slow;
  asio::co_spawn(
      ctx,
      [&]() -> asio::awaitable<void> {
        call_deadline deadline;
        deadline.user = "grace";
        std::string tool = "everything__trigger-long-running-operation";
        json args = {{"duration", 3}, {"steps", 3}};
        slow = co_await registry->call(std::move(tool), std::move(args), deadline);
      },
      asio::detached);
  for (int i = 0; i < 200 && !cap_health()["full"].get<bool>(); ++i) sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(cap_health()["full"].get<bool>()) << cap_health().dump();
  for (const auto& source : registry->health_sources()) {
    if (source->name() == "mcp.user_instances") {
      EXPECT_FALSE(source->check().up);
    }
  }
  auto refused = call_as("frank", "memory__read_graph", json::object());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, errc::user_servers_busy) << refused.error().describe();
  EXPECT_NE(refused.error().hint.find("MCP_MAX_USER_SERVERS"), std::string::npos);
  while (!slow) ctx.run_one();
  ASSERT_TRUE(*slow) << slow->error().describe();
  EXPECT_EQ(cap_health()["refusedAtCap"], 1);
  EXPECT_TRUE(call_as("frank", "memory__read_graph", json::object())) << "room again once grace's call ended";
}

TEST_F(UserServers, AUsersSecretGoesToTheirInstanceAndComesBackAsAToken) {
  const std::string value = "tok-\"alice\"-0123456789";  // a quote: JSON text escapes it
  secrets = std::make_shared<map_secrets>(
      std::map<std::string, std::map<std::string, std::string>>{{"alice", {{"TOKEN", value}}}});
  config.servers.clear();
  auto leaky = testing::fault_server("normal");
  leaky.name = "leaky";
  leaky.scope = server_scope::user;
  leaky.env["TOKEN"] = "${secret:TOKEN}";
  config.servers.push_back(leaky);
  harness::testing::captured_log log(4096);
  start();

  auto leaked = call_as("alice", "leaky__leak", {{"name", "TOKEN"}});
  ASSERT_TRUE(leaked) << leaked.error().describe();
  EXPECT_EQ((*leaked)["value"], "[SECRET_1]") << leaked->dump();
  EXPECT_EQ((*leaked)["quoted"], "\"[SECRET_1]\"") << leaked->dump();
  auto failed = call_as("alice", "leaky__leak", {{"name", "TOKEN"}, {"fail", true}});
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().describe().find("0123456789"), std::string::npos) << failed.error().describe();
  EXPECT_NE(failed.error().describe().find("[SECRET_1]"), std::string::npos) << failed.error().describe();
  // What her instance asks the person (an elicitation) passes the mask too.
  json asked;
  call_deadline deadline;
  deadline.user = "alice";
  deadline.elicit = [&asked](json params) -> asio::awaitable<std::optional<json>> {
    asked = std::move(params);
    co_return json{{"action", "decline"}};
  };
  auto asking = run(ctx, registry->call("leaky__leak", {{"name", "TOKEN"}, {"ask", true}}, deadline));
  ASSERT_TRUE(asking) << asking.error().describe();
  EXPECT_EQ(asked.value("message", ""), "ask [SECRET_1]") << asked.dump();
  // The token is the value again only on its way into her own instance.
  auto same = call_as("alice", "leaky__env_is", {{"name", "TOKEN"}, {"value", "[SECRET_1]"}});
  ASSERT_TRUE(same) << same.error().describe();
  EXPECT_EQ((*same)["same"], true) << same->dump();

  // Bob has none: refused before his instance starts, with the way to set it.
  auto bobs = call_as("bob", "leaky__leak", {{"name", "TOKEN"}});
  ASSERT_FALSE(bobs);
  EXPECT_EQ(bobs.error().code, errc::secret_missing) << bobs.error().describe();
  EXPECT_NE(bobs.error().message.find("secrets set --user bob TOKEN"), std::string::npos) << bobs.error().message;
  EXPECT_EQ(status_of("leaky")["instances"], 1) << "only Alice's";

  // Her instance's stderr and log notifications reach the log with the token.
  for (int i = 0; i < 40 && !log.contains("leaking [SECRET_1]"); ++i) sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(log.contains("leaking [SECRET_1]")) << ::testing::PrintToString(log.lines());
  EXPECT_TRUE(log.contains("log [SECRET_1]")) << ::testing::PrintToString(log.lines());
  EXPECT_FALSE(log.contains("0123456789")) << ::testing::PrintToString(log.lines());

  // A changed secret restarts her instance: the next call starts one with the new value.
  const auto pid = status_of("leaky")["pids"][0];
  registry->restart_user_instances("alice");  // no call is in it: it stops at once
  EXPECT_EQ(status_of("leaky")["instances"], 0);
  ASSERT_TRUE(call_as("alice", "leaky__leak", {{"name", "TOKEN"}}));
  EXPECT_NE(status_of("leaky")["pids"][0], pid);
}

}  // namespace
}  // namespace harness::mcp
