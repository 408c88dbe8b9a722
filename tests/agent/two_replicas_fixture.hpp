// Two replicas of the real binary sharing one PostgreSQL store (STORE_URL) on
// one machine: different ports and SANDBOX_OWNERs, their own folders, one
// vault key (what one seals the other opens), the real Docker engine and the
// fake LLM. Each suite names itself and adds its own settings.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "llm/fake_llm_server.hpp"
#include "support/harness_server.hpp"
#include "support/postgres_server.hpp"

namespace harness::testing {

class two_replicas : public ::testing::Test {
 protected:
  // A fresh folder and database for `name`; `extra` settings go to both
  // replicas (and to any started again with start()). Call from SetUp, then start both.
  void prepare(const std::string& name, std::map<std::string, std::string> extra) {
    const auto pid = std::to_string(getpid());
    owner_a = "harness-" + name + "-a-" + pid;
    owner_b = "harness-" + name + "-b-" + pid;
    root = std::filesystem::temp_directory_path() / ("harness-" + name + "-" + pid);
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root / "files");
    store_url = postgres_server::shared().create_database();
    settings = std::move(extra);
    settings["STORE_URL"] = store_url;
    settings["VAULT_KEY"] = std::string(64, 'a');
  }
  void start_both() {
    a = start(owner_a);
    b = start(owner_b);
  }

  void TearDown() override {
    for (auto* server : {&a, &b}) {
      if (*server) {
        EXPECT_EQ((*server)->stop(), 0) << (*server)->output();
      }
    }
    EXPECT_EQ(labelled_containers(owner_a), 0);
    EXPECT_EQ(labelled_containers(owner_b), 0);
    std::filesystem::remove_all(root);
  }

  // A replica: its own files and sandboxes, the shared store.
  std::unique_ptr<harness_server> start(const std::string& owner) {
    auto dir = root / owner;
    std::filesystem::create_directories(dir);
    auto server = std::make_unique<harness_server>(
        end_to_end_env(owner, dir.string(), (root / "files").string(), llm.openai_base_url(), settings));
    EXPECT_TRUE(server->wait_healthy(1, {"store"})) << server->call("GET", "/health")->body;
    return server;
  }

  // One request; its JSON body (null when empty), expecting `expected_status`.
  static nlohmann::json call(harness_server& server, const std::string& method, const std::string& target,
                             const nlohmann::json& body, int expected_status, const std::string& headers = {}) {
    using namespace std::chrono_literals;
    auto r = server.call(method, target, body.is_null() ? std::string() : body.dump(), 60s, headers);
    EXPECT_TRUE(r);
    if (!r) return {};
    EXPECT_EQ(r->status, expected_status) << method << " " << target << ": " << r->body;
    return r->body.empty() ? nlohmann::json() : r->json();
  }

  std::string owner_a, owner_b, store_url;
  std::filesystem::path root;
  fake_llm_server llm;
  std::unique_ptr<harness_server> a, b;
  std::map<std::string, std::string> settings;  // what both replicas start with
};

}  // namespace harness::testing
