// Pure parts of the sandbox: its settings and the hardened create body.
#include <unistd.h>

#include <gtest/gtest.h>

#include "harness/sandbox/container_body.hpp"
#include "harness/sandbox/process_label.hpp"
#include "harness/sandbox/sandbox.hpp"
#include "harness/sandbox/sandbox_config.hpp"

namespace harness::sandbox {
namespace {

result<sandbox_config> load(std::map<std::string, std::string> env) {
  auto specs = sandbox_setting_specs();
  core::setting_sources sources;
  sources.env = std::move(env);
  auto s = core::settings::resolve(specs, sources);
  if (!s) return s.error();
  return load_sandbox_config(*s);
}

TEST(SandboxConfig, DefaultsAreTheSafeOnes) {
  auto c = load({});
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_EQ(c->image, "mcp-harness-sandbox:latest");
  EXPECT_EQ(c->network, "none");
  EXPECT_EQ(c->runtime, "");
  EXPECT_EQ(c->timeout, std::chrono::milliseconds(30'000));
}

TEST(SandboxConfig, ReadsEverySetting) {
  auto c = load({{"SANDBOX_MEMORY_MB", "512"},
                 {"SANDBOX_CPU_QUOTA", "0.5"},
                 {"SANDBOX_TIMEOUT_MS", "1500"},
                 {"SANDBOX_PIDS_LIMIT", "64"},
                 {"SANDBOX_TMP_MB", "8"},
                 {"SANDBOX_RUNTIME", "runsc"},
                 {"SANDBOX_NETWORK", "tools-net"}});
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_EQ(c->memory_mb, 512);
  EXPECT_DOUBLE_EQ(c->cpus, 0.5);
  EXPECT_EQ(c->timeout, std::chrono::milliseconds(1500));
  EXPECT_EQ(c->pids_limit, 64);
  EXPECT_EQ(c->tmp_mb, 8);
  EXPECT_EQ(c->runtime, "runsc");
  EXPECT_EQ(c->network, "tools-net");
}

TEST(SandboxConfig, BadValuesNameTheSetting) {
  auto a = load({{"SANDBOX_CPU_QUOTA", "lots"}});
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message.find("SANDBOX_CPU_QUOTA"), std::string::npos);
  auto b = load({{"SANDBOX_MEMORY_MB", "4"}});
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().message.find("SANDBOX_MEMORY_MB"), std::string::npos);
  EXPECT_FALSE(load({{"SANDBOX_NETWORK", "host; rm -rf"}}));
}

// A container's maker is alive while that very process runs: not a later
// process with its pid, not one of another boot, not a malformed label.
TEST(ProcessLabel, NamesALiveProcessAndNothingElse) {
  const std::string self = this_process();
  ASSERT_FALSE(self.empty());
  EXPECT_TRUE(process_alive(self));
  EXPECT_EQ(process_label_of(::getpid()), self);
  const auto first = self.find('/'), last = self.rfind('/');
  const std::string boot = self.substr(0, first), pid = self.substr(first + 1, last - first - 1);
  const std::string started = self.substr(last + 1);
  EXPECT_FALSE(process_alive(boot + "/" + pid + "/" + std::to_string(std::stoll(started) + 1)));  // pid reused
  EXPECT_FALSE(process_alive("00000000-0000-0000-0000-000000000000/" + pid + "/" + started));     // another boot
  EXPECT_FALSE(process_alive(boot + "]/" + pid + "/" + started));  // another PID namespace
  EXPECT_FALSE(process_alive(boot + "/4194305/" + started));       // no such pid
  EXPECT_TRUE(process_label_of(4194305).empty());
  for (const char* bad : {"", "/", "//", "x/1", "x/y/z", "a/../1/2", "a/1/2/3", "a/-1/2"}) {
    EXPECT_FALSE(process_alive(bad)) << bad;
  }
  EXPECT_FALSE(process_alive(boot + "/../self/" + started));
}

TEST(ContainerBody, HasEveryHardeningSetting) {
  sandbox_config c;
  c.memory_mb = 300;
  c.cpus = 0.5;
  c.pids_limit = 77;
  c.tmp_mb = 9;
  auto body = hardened_container_body(c, "task-1");
  auto& h = body["HostConfig"];
  EXPECT_EQ(body["User"], "1000:1000");
  EXPECT_EQ(body["Tty"], false);
  EXPECT_EQ(body["OpenStdin"], true);
  EXPECT_EQ(body["NetworkDisabled"], true);
  EXPECT_EQ(body["Labels"][owner_label], "mcp-harness");
  EXPECT_EQ(body["Labels"][task_label], "task-1");
  EXPECT_EQ(body["Labels"][process_label], this_process());
  EXPECT_EQ(h["NetworkMode"], "none");
  EXPECT_EQ(h["ReadonlyRootfs"], true);
  EXPECT_EQ(h["CapDrop"], nlohmann::json::array({"ALL"}));
  EXPECT_EQ(h["SecurityOpt"], nlohmann::json::array({"no-new-privileges"}));
  EXPECT_EQ(h["Privileged"], false);
  EXPECT_EQ(h["PidsLimit"], 77);
  EXPECT_EQ(h["Memory"], 300LL * 1024 * 1024);
  EXPECT_EQ(h["MemorySwap"], h["Memory"]);
  EXPECT_EQ(h["NanoCpus"], 500'000'000);
  EXPECT_EQ(h["Init"], true);
  EXPECT_NE(h["Tmpfs"]["/tmp"].get<std::string>().find("size=9m"), std::string::npos);
  for (auto& [path, opts] : h["Tmpfs"].items()) {
    EXPECT_NE(opts.get<std::string>().find("noexec,nosuid,nodev"), std::string::npos) << path;
  }
  EXPECT_TRUE(h["Tmpfs"].contains("/workspace"));
  EXPECT_TRUE(h["Tmpfs"].contains("/skills"));
  EXPECT_EQ(h["LogConfig"]["Config"]["max-size"], "1m");
  EXPECT_EQ(h["Ulimits"].size(), 2u);
  EXPECT_TRUE(h["Binds"].is_null());
  EXPECT_TRUE(h["Mounts"].empty());
  EXPECT_FALSE(h.contains("Runtime"));
}

TEST(ContainerBody, EnvironmentCarriesNoHostValues) {
  ::setenv("LLM_API_KEY", "sk-should-not-leak", 1);
  auto body = hardened_container_body(sandbox_config{}, "t");
  EXPECT_EQ(body.dump().find("sk-should-not-leak"), std::string::npos);
  EXPECT_EQ(body["Env"], nlohmann::json::array({"NODE_ENV=production", "HOME=/workspace"}));
}

TEST(ContainerBody, ACallSocketIsTheOneFileMounted) {
  auto body = hardened_container_body(sandbox_config{}, "t", {}, "/srv/harness/sockets/0a1b.sock");
  EXPECT_EQ(body["HostConfig"]["Binds"],
            nlohmann::json::array({"/srv/harness/sockets/0a1b.sock:/run/harness-calls.sock"}));
  EXPECT_TRUE(body["HostConfig"]["Mounts"].empty());
  EXPECT_EQ(body["HostConfig"]["ReadonlyRootfs"], true);
}

TEST(ContainerBody, RuntimeAndAGrantedNetwork) {
  sandbox_config c;
  c.runtime = "runsc";
  c.network = "tools-net";
  auto body = hardened_container_body(c, "t");
  EXPECT_EQ(body["HostConfig"]["Runtime"], "runsc");
  EXPECT_EQ(body["HostConfig"]["NetworkMode"], "tools-net");
  EXPECT_EQ(body["NetworkDisabled"], false);
}

}  // namespace
}  // namespace harness::sandbox
