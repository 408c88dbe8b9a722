// Eight first requests for one new sessionId at once, against the real
// engine: one sandbox starts and every block that runs shares its REPL state.
// The session answers the requests that find it busy (starting, or running
// another block) with 409 session_busy, as it answers any request that finds
// it running a block.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "execution/execute_fixture.hpp"

namespace harness::testing {
namespace {

// Sandboxes claimed so far, warm and cold, from /metrics (GET /health reuses
// its document for a moment, so it can miss claims made just now).
double claims_so_far(unsigned short port) {
  auto metrics = http_call(port, "GET", "/metrics");
  EXPECT_TRUE(metrics && metrics->status == 200);
  if (!metrics) return -1;
  double sum = 0;
  const std::string prefix = "\nharness_sandbox_claims_total{";
  for (auto at = metrics->body.find(prefix); at != std::string::npos; at = metrics->body.find(prefix, at + 1)) {
    const auto end = metrics->body.find('\n', at + 1);
    const auto line = metrics->body.substr(at + 1, end - at - 1);
    sum += std::stod(line.substr(line.rfind(' ') + 1));
  }
  return sum;
}

TEST_F(ExecuteIntegration, EightFirstCallsWithOneNewSessionIdShareOneSandbox) {
  const double claims_before = claims_so_far(port);
  // Each block bumps a global of the REPL and returns it.
  const std::string code = "globalThis.n = (globalThis.n ?? 0) + 1; return n";
  const json body{{"userId", "alice"}, {"sessionId", "race-1"}, {"code", code}};
  std::vector<std::optional<raw_response>> answers(8);
  std::vector<std::thread> burst;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    burst.emplace_back([&, i] { answers[i] = http_call(port, "POST", "/execute", body.dump(), "application/json"); });
  }
  for (auto& t : burst) t.join();

  std::vector<int> counts;
  int opened = 0;
  for (const auto& a : answers) {
    ASSERT_TRUE(a);
    if (a->status == 409) {
      EXPECT_EQ(a->json()["error"]["code"], "session_busy") << a->body;
      continue;
    }
    ASSERT_EQ(a->status, 200) << a->body;
    json r = a->json();
    EXPECT_FALSE(r.contains("error")) << r.dump();
    EXPECT_EQ(r["sessionId"], "race-1");
    EXPECT_EQ(r["sandbox"]["ended"], false);
    opened += r["sandbox"]["opened"].get<bool>() ? 1 : 0;
    counts.push_back(r["result"].get<int>());
  }
  // The blocks that ran counted 1, 2, ... in one REPL: one sandbox, one state.
  ASSERT_FALSE(counts.empty()) << "every request was refused";
  std::sort(counts.begin(), counts.end());
  for (std::size_t i = 0; i < counts.size(); ++i) EXPECT_EQ(counts[i], static_cast<int>(i) + 1);
  EXPECT_EQ(opened, 1) << "more than one request started the session's sandbox";

  // The next block finds the same state.
  json next = execute(body);
  EXPECT_EQ(next["result"], static_cast<int>(counts.size()) + 1) << next.dump();
  EXPECT_EQ(next["sandbox"]["opened"], false);

  // One sandbox was claimed for it all (the warm one, or a cold start).
  EXPECT_EQ(claims_so_far(port) - claims_before, 1);

  auto ended = http_call(port, "DELETE", "/sessions/race-1?userId=alice");
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->status, 200);
}

}  // namespace
}  // namespace harness::testing
