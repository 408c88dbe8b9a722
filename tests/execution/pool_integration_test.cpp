// The warm pool under a burst, with the real engine: the target rises with
// the demand, /health and /metrics say so,
// and nothing is left behind (the fixture's TearDown counts containers).
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "execution/execute_fixture.hpp"

namespace harness::testing {
namespace {

// Generous timeouts: seven cold starts at once take a while on two cores,
// more under gVisor; this test is about the target, not the speed.
json pool_health(harness_server& server) {
  auto r = server.call("GET", "/health", {}, 60s);
  return r ? r->json()["components"]["pool"] : json::object();
}

TEST_F(ExecuteIntegration, ABurstRaisesThePoolsTargetAndThePoolFillsUpToIt) {
  ASSERT_EQ(server->stop(), 0) << server->output();
  start_server({{"SANDBOX_POOL_SIZE", "1"}, {"SANDBOX_POOL_MAX", "4"}, {"SANDBOX_POOL_PARALLEL_STARTS", "3"}});
  json idle = pool_health(*server);
  EXPECT_EQ(idle["target"], 1) << idle.dump();
  EXPECT_EQ(idle["min"], 1);
  EXPECT_EQ(idle["max"], 4);

  // Eight at once: one finds the pooled sandbox, the others start cold.
  std::vector<std::thread> burst;
  std::vector<json> answers(8);
  for (std::size_t i = 0; i < answers.size(); ++i) {
    burst.emplace_back([&, i] {
      auto r =
          http_call(port, "POST", "/execute", json{{"userId", "u" + std::to_string(i)}, {"code", "return 1"}}.dump(),
                    "application/json", "", 60s);
      answers[i] = r ? r->json() : json{{"failed", "no answer within 60 s"}};
    });
  }
  for (auto& t : burst) t.join();
  for (const auto& a : answers) EXPECT_EQ(a["result"], 1) << a.dump();

  // Eight claims within the window ask for more than the minimum, and the
  // pool fills up to that target.
  json after = pool_health(*server);
  EXPECT_GT(after["target"].get<int>(), 1) << after.dump();
  EXPECT_LE(after["target"].get<int>(), 4);
  EXPECT_GT(after["claimsPerSecond"].get<double>(), 0);
  EXPECT_EQ(after["warmClaims"].get<int>() + after["coldClaims"].get<int>(), 8);
  EXPECT_GT(after["claimWaitMs"]["p99"].get<double>(), 0) << "cold claims waited for a whole start";
  json filled;
  for (int i = 0; i < 150; ++i) {
    filled = pool_health(*server);
    if (filled["ready"] == filled["target"] && filled["starting"] == 0) break;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(filled["ready"], filled["target"]) << filled.dump();
  EXPECT_GT(filled["ready"].get<int>(), 1) << filled.dump();

  auto metrics = server->call("GET", "/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("harness_sandbox_pool_starting"), std::string::npos);
  EXPECT_NE(metrics->body.find("harness_sandbox_claim_wait_seconds{quantile=\"0.99\"}"), std::string::npos);
}

}  // namespace
}  // namespace harness::testing
