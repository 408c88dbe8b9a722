// The /execute fixture: the real mcp-harness binary with the real Docker
// engine, the sandbox image, the npm MCP servers (servers/mcp.json) and the
// PII censor; after each test no container of its owner is left.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "support/harness_server.hpp"

namespace harness::testing {

using namespace std::chrono_literals;
using json = nlohmann::json;
namespace fs = std::filesystem;

class ExecuteIntegration : public ::testing::Test {
 protected:
  void SetUp() override {
    owner = "harness-it-" + std::to_string(getpid());
    workspace = fs::temp_directory_path() / (owner + "-ws");
    fs::create_directories(workspace);
    start_server({});
  }

  void start_server(const std::map<std::string, std::string>& overrides, bool wait_for_pool = true) {
    std::map<std::string, std::string> env{{"PORT", "0"},
                                           {"ENV_FILE", "/dev/null"},
                                           {"SANDBOX_TIMEOUT_MS", "4000"},
                                           {"SANDBOX_POOL_SIZE", "1"},
                                           {"MCP_FS_ROOT", workspace.string()},
                                           {"MEMORY_FILE_PATH", (workspace / "memory.jsonl").string()},
                                           {"SANDBOX_IDLE_TIMEOUT_MS", "60000"},
                                           {"SANDBOX_OWNER", owner},
                                           {"SANDBOX_CALL_SOCKET_DIR", (workspace / "sockets").string()},
                                           {"SKILLS_DIR", (workspace / "skills").string()},
                                           {"WORKSPACE_DIR", (workspace / "workspaces").string()}};
    for (const auto& [name, value] : overrides) env[name] = value;
    server = std::make_unique<harness_server>(env);
    port = server->port();
    // A warm sandbox, so tests see the pooled path. The MCP servers are not
    // waited for: code run while they start waits for them itself.
    if (wait_for_pool) {
      ASSERT_TRUE(server->wait_healthy(1, {})) << server->call("GET", "/health")->body;
    }
  }

  void TearDown() override {
    EXPECT_EQ(server->stop(), 0) << server->output();
    // Every test ends with none of its containers left: sessions, one-shot
    // sandboxes, the warm pool and any start that was in flight at shutdown.
    EXPECT_EQ(labelled_containers(owner), 0);
    fs::remove_all(workspace);
  }

  json execute(json body, int expected_status = 200) {
    // A generous wait for the answer: a cold sandbox (every first Python
    // block: its pool fills on demand) takes seconds under gVisor on a busy
    // machine. No test here measures time.
    auto r = http_call(port, "POST", "/execute", body.dump(), "application/json", "", 60s);
    EXPECT_TRUE(r);
    if (!r) return {};
    EXPECT_EQ(r->status, expected_status) << r->body;
    return r->json();
  }

  std::string owner;
  fs::path workspace;
  std::unique_ptr<harness_server> server;
  unsigned short port = 0;
};

}  // namespace harness::testing
