// The fixture of the face's 2026-07-28 tests against the fakes: a face on
// one io_context, requests built with the new era's envelope, and ways to
// start a request and run handlers until something holds.
#pragma once

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "harness/mcp_server/mcp_face.hpp"
#include "harness/mcp_server/modern.hpp"
#include "mcp_server/fakes.hpp"
#include "support/run_sync.hpp"

namespace harness::mcp_server::testing {

namespace asio = boost::asio;
using json = nlohmann::json;
using fakes::fake_execution;
using fakes::fake_tools;
using harness::testing::run_until_done;

inline json envelope(json capabilities = json::object()) {
  return {{modern::version_key, "2026-07-28"},
          {modern::capabilities_key, std::move(capabilities)},
          {modern::client_info_key, {{"name", "test"}, {"version", "1"}}}};
}

inline json request(int id, std::string method, json params = json::object()) {
  params["_meta"] = envelope();
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", std::move(method)}, {"params", std::move(params)}};
}

inline json call(int id, const char* tool, json args) {
  return request(id, "tools/call", {{"name", tool}, {"arguments", std::move(args)}});
}

class McpModern : public ::testing::Test {
 protected:
  void SetUp() override {
    face = create_mcp_face(io.get_executor(), core::real_clock(), {.tools = tools, .execution = execution}, config);
  }
  void TearDown() override { run_until_done(io, face->shutdown()); }

  std::optional<json> send(json message, mcp_caller caller = {"alice", "key_1", false}) {
    return run_until_done(io, face->handle_modern(std::move(message), std::move(caller), nullptr, nullptr));
  }
  json result_of(json message, mcp_caller caller = {"alice", "key_1", false}) {
    auto answer = send(std::move(message), std::move(caller));
    EXPECT_TRUE(answer.has_value());
    if (!answer) return nullptr;
    EXPECT_FALSE(answer->contains("error")) << answer->dump();
    return (*answer)["result"];
  }
  std::string open_session(mcp_caller caller = {"alice", "key_1", false}) {
    auto r = result_of(call(1, "open_session", json::object()), std::move(caller));
    EXPECT_FALSE(r.value("isError", true)) << r.dump();
    return r["structuredContent"].value("session", "");
  }

  // Starts a request without waiting; its answer lands in `out`.
  // `abandoned`: what the HTTP route fires when the client leaves (none: stdio).
  void start(json message, std::optional<json>& out, mcp_caller caller = {"alice", "key_1", false},
             std::shared_ptr<core::abandonment> abandoned = nullptr) {
    auto handling = [](std::shared_ptr<mcp_face> f, json m, mcp_caller c, std::shared_ptr<core::abandonment> a,
                       std::optional<json>& answer) -> asio::awaitable<void> {
      answer = co_await f->handle_modern(std::move(m), std::move(c), nullptr, std::move(a));
    };
    asio::co_spawn(io, handling(face, std::move(message), std::move(caller), std::move(abandoned), out),
                   asio::detached);
  }
  // Runs handlers until `done` holds (or a bound of rounds passes).
  template <class Done>
  bool poll_until(Done done) {
    for (int i = 0; i < 10000 && !done(); ++i) {
      io.restart();
      io.poll();
    }
    return done();
  }

  asio::io_context io;
  face_config config;
  std::shared_ptr<fake_tools> tools = std::make_shared<fake_tools>();
  std::shared_ptr<fake_execution> execution = std::make_shared<fake_execution>(io);
  std::shared_ptr<mcp_face> face;
};

}  // namespace harness::mcp_server::testing
