// engine_client against the in-memory fake engine (real HTTP over a unix socket).
#include "harness/docker/engine_client.hpp"
#include "harness/docker/errors.hpp"

#include <gtest/gtest.h>

#include "docker/fake_engine.hpp"
#include "support/run_sync.hpp"

namespace harness::docker {
namespace {

using harness::testing::run_sync;

class EngineClientTest : public ::testing::Test {
 protected:
  std::shared_ptr<engine_client> client() {
    docker_config config;
    config.endpoint.socket_path = engine.socket_path();
    config.request_timeout = std::chrono::milliseconds(5000);
    return create_engine_client(io.get_executor(), config);
  }
  template <class T>
  T run(boost::asio::awaitable<T> work) {
    return run_sync(io, std::move(work));
  }

  testing::fake_engine engine;
  boost::asio::io_context io;
};

TEST_F(EngineClientTest, PingAndVersion) {
  auto c = client();
  EXPECT_TRUE(run(c->ping()));
  auto v = run(c->version());
  ASSERT_TRUE(v) << v.error().describe();
  EXPECT_EQ(v->version, "99.0-fake");
  EXPECT_EQ(v->negotiated_api_version, "1.41");
}

TEST_F(EngineClientTest, InfoListsTheRuntimesWithTheirArguments) {
  engine.runtimes = {{"runc", {}}, {"runsc", {"--host-uds=open", "--network=none"}}};
  auto c = client();
  auto info = run(c->info());
  ASSERT_TRUE(info) << info.error().describe();
  EXPECT_EQ(info->default_runtime, "runc");
  ASSERT_NE(info->find_runtime("runsc"), nullptr);
  EXPECT_EQ(info->find_runtime("runsc")->path, "/usr/bin/runsc");
  EXPECT_EQ(info->find_runtime("runsc")->args, (std::vector<std::string>{"--host-uds=open", "--network=none"}));
  EXPECT_EQ(info->find_runtime("kata"), nullptr);
}

TEST_F(EngineClientTest, InfoWithoutRuntimesIsEmptyNotAnError) {
  engine.canned["/info"] = {200, R"({"ID":"x","Runtimes":"not an object"})"};
  auto c = client();
  auto info = run(c->info());
  ASSERT_TRUE(info) << info.error().describe();
  EXPECT_EQ(info->default_runtime, "runc");
  EXPECT_TRUE(info->runtimes.empty());
}

TEST_F(EngineClientTest, NegotiatesDownToWhatBothSpeak) {
  engine.api_version = "1.51";
  engine.min_api_version = "1.44";
  auto c = client();
  auto v = run(c->version());
  ASSERT_TRUE(v);
  EXPECT_EQ(v->negotiated_api_version, "1.47");
  ASSERT_TRUE(run(c->inspect_image("mcp-harness-sandbox:latest")));
  EXPECT_EQ(engine.requests().back(), "GET /v1.47/images/mcp-harness-sandbox:latest/json");
}

TEST_F(EngineClientTest, RefusesAnEngineThatIsTooOld) {
  engine.api_version = "1.40";
  auto v = run(client()->version());
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().code, harness::docker::errc::api_version);
}

TEST_F(EngineClientTest, UnreachableEngineHasAHint) {
  docker_config config;
  config.endpoint.socket_path = "/nonexistent/docker.sock";
  auto r = run(create_engine_client(io.get_executor(), config)->ping());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, harness::docker::errc::unreachable);
  EXPECT_NE(r.error().message.find("/nonexistent/docker.sock"), std::string::npos);
  EXPECT_FALSE(r.error().hint.empty());
}

TEST_F(EngineClientTest, MissingImageIsTyped) {
  auto c = client();
  auto r = run(c->inspect_image("nope:latest"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, harness::docker::errc::image_not_found);
  EXPECT_NE(r.error().message.find("No such image: nope:latest"), std::string::npos);
  auto created = run(c->create_container({{"Image", "nope:latest"}}, ""));
  ASSERT_FALSE(created);
  EXPECT_EQ(created.error().code, harness::docker::errc::image_not_found);
}

TEST_F(EngineClientTest, EngineErrorsKeepTheEngineMessage) {
  engine.canned["/start"] = {500, R"({"message":"OCI runtime create failed: boom"})"};
  auto c = client();
  auto id = run(c->create_container({{"Image", "mcp-harness-sandbox:latest"}}, "box-1"));
  ASSERT_TRUE(id);
  auto r = run(c->start_container(*id));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, harness::docker::errc::engine_error);
  EXPECT_NE(r.error().message.find("OCI runtime create failed: boom"), std::string::npos);
  auto k = run(c->kill_container(*id, "SIGKILL"));
  ASSERT_FALSE(k);
  EXPECT_EQ(k.error().code, harness::docker::errc::conflict);
  EXPECT_EQ(run(c->remove_container("f00", true)).error().code, harness::docker::errc::not_found);
}

TEST_F(EngineClientTest, RejectsIdsThatWouldChangeThePath) {
  auto r = run(client()->inspect_container("../../images/x"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, harness::docker::errc::bad_request);
  EXPECT_TRUE(engine.requests().empty());
}

TEST_F(EngineClientTest, NonJsonAnswerIsAProtocolError) {
  engine.canned["/json"] = {200, "<html>proxy</html>"};
  auto r = run(client()->inspect_container("abc"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, harness::docker::errc::protocol_error);
}

TEST_F(EngineClientTest, ContainerLifecycleWithAttach) {
  for (bool split : {false, true}) {
    engine.split_frames = split;
    auto c = client();
    auto id = run(c->create_container({{"Image", "mcp-harness-sandbox:latest"}, {"Labels", {{"k", "v"}}}}, ""));
    ASSERT_TRUE(id);
    auto stream = run(c->attach_container(*id));
    ASSERT_TRUE(stream) << stream.error().describe();
    ASSERT_TRUE(run(c->start_container(*id)));
    ASSERT_TRUE(run((*stream)->write_stdin("line one\n", std::chrono::seconds(5))));
    ASSERT_TRUE(run((*stream)->write_stdin("line two\n", std::chrono::seconds(5))));
    ASSERT_TRUE((*stream)->close_stdin());
    std::string out, err;
    for (;;) {
      auto chunk = run((*stream)->read(std::chrono::seconds(5)));
      ASSERT_TRUE(chunk) << chunk.error().describe();
      if (!*chunk) break;
      ((*chunk)->stream == output_stream::stderr_stream ? err : out) += (*chunk)->data;
    }
    EXPECT_EQ(out, "line one\nline two\n");
    EXPECT_EQ(err, "bye\n");
    auto waited = run(c->wait_container(*id, std::chrono::seconds(5)));
    ASSERT_TRUE(waited);
    EXPECT_EQ(waited->status_code, 0);
    auto state = run(c->inspect_container(*id));
    ASSERT_TRUE(state);
    EXPECT_FALSE(state->running);
    EXPECT_EQ(state->labels.at("k"), "v");
    auto listed = run(c->list_containers("k=v", true));
    ASSERT_TRUE(listed);
    ASSERT_EQ(listed->size(), 1u);
    EXPECT_EQ(listed->front().id, *id);
    EXPECT_TRUE(run(c->remove_container(*id, true)));
    EXPECT_EQ(engine.container_count(), 0u);
  }
  bool saw_filter = false;
  for (const auto& r : engine.requests()) {
    saw_filter |= r.find("/containers/json?all=1&filters=%7B%22label%22%3A%5B%22k%3Dv%22%5D%7D") != std::string::npos;
  }
  EXPECT_TRUE(saw_filter);
}

}  // namespace
}  // namespace harness::docker
