// The real binary for tests of several users: a temp folder of its own, the
// end-to-end settings (real sandbox, npm servers, SQLite, a fake LLM), and
// /execute as one user. Each suite starts the server with its own settings.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "llm/fake_llm_server.hpp"
#include "support/harness_server.hpp"

namespace harness::testing {

class users_e2e : public ::testing::Test {
 protected:
  // A fresh folder (and sandbox label) named after `prefix`.
  void make_root(const std::string& prefix) {
    owner = prefix + "-" + std::to_string(getpid());
    root = std::filesystem::temp_directory_path() / owner;
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root);
  }

  // Starts the binary with the end-to-end settings plus `extra`, serving
  // `files` as the filesystem server's root, and waits for it.
  void start(const std::string& files, const std::map<std::string, std::string>& extra) {
    server =
        std::make_unique<harness_server>(end_to_end_env(owner, root.string(), files, llm.openai_base_url(), extra));
    ASSERT_TRUE(server->wait_healthy(1, {"store"})) << server->call("GET", "/health")->body;
  }

  void TearDown() override {
    if (server) {
      EXPECT_EQ(server->stop(), 0) << server->output();
    }
    EXPECT_EQ(labelled_containers(owner), 0);
    std::filesystem::remove_all(root);
  }

  nlohmann::json execute(const std::string& user, const std::string& code) {
    using namespace std::chrono_literals;
    auto r = server->call("POST", "/execute", nlohmann::json{{"userId", user}, {"code", code}}.dump(), 90s);
    EXPECT_TRUE(r);
    if (!r) return {};
    EXPECT_EQ(r->status, 200) << r->body;
    return r->json();
  }

  std::string owner;
  std::filesystem::path root;
  fake_llm_server llm;
  std::unique_ptr<harness_server> server;
};

}  // namespace harness::testing
