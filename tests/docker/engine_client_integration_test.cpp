// engine_client against the real dockerd and the real sandbox image.
#include <unistd.h>

#include <cstdlib>

#include <gtest/gtest.h>

#include "docker/attachable_container.hpp"
#include "support/run_sync.hpp"
#include "harness/docker/engine_client.hpp"

namespace harness::docker {
namespace {

using harness::testing::run_sync;

class EngineIntegration : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* host = std::getenv("DOCKER_HOST");
    auto endpoint = parse_engine_endpoint(host ? host : "", "", "");
    ASSERT_TRUE(endpoint);
    docker_config config;
    config.endpoint = *endpoint;
    client = create_engine_client(io.get_executor(), config);
    ASSERT_TRUE(run(client->ping())) << "dockerd is not running; ./scripts/test.sh starts it";
  }
  void TearDown() override {
    auto listed = run(client->list_containers("org.mcp-harness.test=" + label_value(), true));
    if (listed) {
      for (auto& c : *listed) (void)run(client->remove_container(c.id, true));
    }
  }
  template <class T>
  T run(boost::asio::awaitable<T> work) {
    return run_sync(io, std::move(work));
  }
  // Unique to this process: tests run in parallel and each teardown removes only its own.
  static std::string label_value() { return "engine-" + std::to_string(::getpid()); }

  boost::asio::io_context io;
  std::shared_ptr<engine_client> client;
};

TEST_F(EngineIntegration, VersionIsNegotiatedWithTheRealEngine) {
  auto v = run(client->version());
  ASSERT_TRUE(v) << v.error().describe();
  EXPECT_FALSE(v->version.empty());
  EXPECT_GE(v->negotiated_api_version, std::string("1.41"));
}

TEST_F(EngineIntegration, ImageInspectAndMissingImage) {
  auto found = run(client->inspect_image(testing::sandbox_image()));
  ASSERT_TRUE(found) << found.error().describe();
  EXPECT_EQ(found->id.rfind("sha256:", 0), 0u);
  auto missing = run(client->inspect_image("mcp-harness-no-such-image:0"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, "docker_image_not_found");
}

TEST_F(EngineIntegration, AttachRunsCodeAndDemuxesBothStreams) {
  auto id = run(client->create_container(testing::attachable_container(label_value()), ""));
  ASSERT_TRUE(id) << id.error().describe();
  auto stream = run(client->attach_container(*id));
  ASSERT_TRUE(stream) << stream.error().describe();
  ASSERT_TRUE(run(client->start_container(*id)));
  std::string code = "console.log('out-' + (6*7)); console.error('err-' + 'x'.repeat(3)); process.exitCode = 3;";
  ASSERT_TRUE(run((*stream)->write_stdin(code, std::chrono::seconds(10))));
  ASSERT_TRUE((*stream)->close_stdin());
  std::string out, err;
  for (;;) {
    auto chunk = run((*stream)->read(std::chrono::seconds(30)));
    ASSERT_TRUE(chunk) << chunk.error().describe();
    if (!*chunk) break;
    ((*chunk)->stream == output_stream::stderr_stream ? err : out) += (*chunk)->data;
  }
  EXPECT_EQ(out, "out-42\n");
  EXPECT_EQ(err, "err-xxx\n");
  auto waited = run(client->wait_container(*id, std::chrono::seconds(30)));
  ASSERT_TRUE(waited);
  EXPECT_EQ(waited->status_code, 3);
  auto state = run(client->inspect_container(*id));
  ASSERT_TRUE(state);
  EXPECT_EQ(state->exit_code, 3);
  EXPECT_FALSE(state->oom_killed);
  EXPECT_EQ(run(client->kill_container(*id, "SIGKILL")).error().code, "docker_conflict");
  EXPECT_TRUE(run(client->remove_container(*id, true)));
  EXPECT_EQ(run(client->inspect_container(*id)).error().code, "docker_not_found");
}

TEST_F(EngineIntegration, BadSettingsComeBackAsBadRequest) {
  nlohmann::json body = {{"Image", testing::sandbox_image()},
                         {"HostConfig", {{"Memory", 1024}}}};  // below the engine's minimum
  auto id = run(client->create_container(body, ""));
  ASSERT_FALSE(id);
  EXPECT_EQ(id.error().code, "docker_bad_request");
  EXPECT_NE(id.error().message.find("emory"), std::string::npos) << id.error().message;
}

}  // namespace
}  // namespace harness::docker
