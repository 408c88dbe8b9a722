// A docker sandbox backend on the real engine, with an owner label unique to
// this test process (so parallel tests never sweep each other's containers),
// and a teardown that checks no container with that label is left behind.
#pragma once

#include <unistd.h>

#include <cstdlib>

#include <gtest/gtest.h>

#include "harness/docker/engine_client.hpp"
#include "harness/sandbox/container_body.hpp"
#include "harness/sandbox/sandbox.hpp"
#include "support/run_sync.hpp"
#include "support/sandbox_runtime.hpp"

namespace harness::sandbox::testing {

class sandbox_fixture : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* host = std::getenv("DOCKER_HOST");
    auto endpoint = docker::parse_engine_endpoint(host ? host : "", "", "");
    ASSERT_TRUE(endpoint);
    docker::docker_config dc;
    dc.endpoint = *endpoint;
    engine = docker::create_engine_client(io.get_executor(), dc);
    ASSERT_TRUE(run(engine->ping())) << "dockerd is not running; ./scripts/test.sh starts it";
    if (const char* image = std::getenv("SANDBOX_IMAGE"); image && *image) config.image = image;
    config.runtime = harness::testing::sandbox_runtime();
    config.owner = "test-" + std::to_string(::getpid());
    config.timeout = std::chrono::milliseconds(20'000);
  }

  void TearDown() override {
    if (!engine) return;
    auto leftovers = run(engine->list_containers(std::string(owner_label) + "=" + config.owner, true));
    ASSERT_TRUE(leftovers);
    EXPECT_TRUE(leftovers->empty()) << leftovers->size() << " container(s) left behind";
    for (auto& c : *leftovers) (void)run(engine->remove_container(c.id, true));
  }

  std::shared_ptr<sandbox_backend> backend() { return create_docker_sandbox(io.get_executor(), engine, config); }

  // Runs `node -e script` in a container with the hardened settings (and
  // config's image and runtime) and returns its standard output.
  std::string run_script(const std::string& script) {
    auto body = hardened_container_body(config, "task-script", {"node", "-e", script});
    auto id = run(engine->create_container(body, ""));
    EXPECT_TRUE(id) << id.error().describe();
    if (!id) return {};
    auto stream = run(engine->attach_container(*id));
    EXPECT_TRUE(stream) << stream.error().describe();
    std::string out;
    if (stream && run(engine->start_container(*id))) {
      for (;;) {
        auto chunk = run((*stream)->read(std::chrono::milliseconds(60'000)));
        EXPECT_TRUE(chunk) << chunk.error().describe();
        if (!chunk || !*chunk) break;
        if ((*chunk)->stream == docker::output_stream::stdout_stream) out += (*chunk)->data;
      }
    }
    EXPECT_TRUE(run(engine->remove_container(*id, true)));
    return out;
  }

  template <class T>
  T run(boost::asio::awaitable<T> work) {
    return harness::testing::run_sync(io, std::move(work));
  }

  boost::asio::io_context io;
  std::shared_ptr<docker::engine_client> engine;
  sandbox_config config;
};

}  // namespace harness::sandbox::testing
