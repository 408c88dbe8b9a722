// The approval desk on a fake clock: a request waits until it is decided,
// times out or the task ends; a second decision and an unknown id are clear
// errors; the hooks see each request and each decision. No test sleeps.
#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "approval_desk.hpp"
#include "harness/agent/errors.hpp"
#include "support/fake_clock.hpp"

namespace harness::agent {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using json = nlohmann::json;
using policy::approval_outcome;

class ApprovalDesk : public ::testing::Test {
 protected:
  ApprovalDesk() {
    approval_desk::hooks on;
    on.shown = [](const json& args) {
      json out = args;
      out["shown"] = true;  // the task censors here
      return out;
    };
    on.requested = [this](const approval_view& v) { requested.push_back(v); };
    on.decided = [this](const approval_view& v, const policy::approval_answer& a) {
      decided.emplace_back(v.id, a);
      still_waiting_when_decided.push_back(desk->waiting());
    };
    desk = std::make_unique<approval_desk>(clock, 60s, std::move(on));
  }

  // Starts one ask; its answer lands in `answers` (by order of asking).
  void ask(const std::string& tool) {
    auto slot = answers.size();
    answers.emplace_back();
    policy::approval_request request{
        tool, {{"entities", json::array()}}, "await callMCPTool(...)", "rule 1 (" + tool + ")"};
    auto asking = [](approval_desk& d, policy::approval_request r,
                     std::optional<policy::approval_answer>& out) -> asio::awaitable<void> {
      out = co_await d.ask(std::move(r));
    };
    asio::co_spawn(io, asking(*desk, std::move(request), answers[slot]), asio::detached);
    io.restart();  // the context stops each time it runs out of work
    io.poll();
  }

  asio::io_context io;
  testing::fake_clock clock;
  std::unique_ptr<approval_desk> desk;
  std::vector<approval_view> requested;
  std::vector<std::pair<std::string, policy::approval_answer>> decided;
  std::vector<bool> still_waiting_when_decided;
  std::deque<std::optional<policy::approval_answer>> answers;
};

TEST_F(ApprovalDesk, ARequestWaitsUntilItIsDecided) {
  ask("mem__create_entities");
  ASSERT_EQ(requested.size(), 1u);
  const auto& v = requested[0];
  EXPECT_EQ(v.id.rfind("appr_", 0), 0u);
  EXPECT_EQ(v.tool, "mem__create_entities");
  EXPECT_EQ(v.arguments["shown"], true);
  EXPECT_EQ(v.reason, "rule 1 (mem__create_entities)");
  EXPECT_EQ(v.expires_ms - v.requested_ms, 60000);
  EXPECT_TRUE(desk->waiting());
  ASSERT_EQ(desk->pending().size(), 1u);
  EXPECT_FALSE(answers[0]);

  auto ok = desk->decide(v.id, {.approve = true, .reason = "fine", .for_task = true, .key_id = "key_a11ce0000000"});
  ASSERT_TRUE(ok) << ok.error().describe();
  EXPECT_TRUE(desk->pending().empty());  // decided: no longer shown, though the ask resumes only now
  io.poll();
  ASSERT_TRUE(answers[0]);
  EXPECT_EQ(answers[0]->outcome, approval_outcome::approved);
  EXPECT_EQ(answers[0]->reason, "fine");
  EXPECT_TRUE(answers[0]->for_task);
  EXPECT_EQ(answers[0]->decided_by, "key_a11ce0000000");
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_FALSE(still_waiting_when_decided[0]);

  auto again = desk->decide(v.id, {.approve = false, .reason = {}, .for_task = false, .key_id = {}});
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, agent::errc::approval_decided);
  EXPECT_NE(again.error().message.find("approved"), std::string::npos) << again.error().message;
  auto unknown = desk->decide("appr_nope", {.approve = true, .reason = {}, .for_task = false, .key_id = {}});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, agent::errc::approval_not_found);
}

TEST_F(ApprovalDesk, ADenialCarriesItsReasonAndScopeTaskGoesWithApprovalsOnly) {
  ask("t");
  ASSERT_TRUE(
      desk->decide(requested[0].id, {.approve = false, .reason = "not today", .for_task = true, .key_id = "k"}));
  io.poll();
  ASSERT_TRUE(answers[0]);
  EXPECT_EQ(answers[0]->outcome, approval_outcome::denied);
  EXPECT_EQ(answers[0]->reason, "not today");
  EXPECT_FALSE(answers[0]->for_task);
}

TEST_F(ApprovalDesk, NobodyDecidingWithinTheTimeoutDenies) {
  ask("t");
  clock.advance(59s);
  io.poll();
  EXPECT_FALSE(answers[0]);
  clock.advance(1s);
  io.poll();
  ASSERT_TRUE(answers[0]);
  EXPECT_EQ(answers[0]->outcome, approval_outcome::timed_out);
  EXPECT_TRUE(answers[0]->decided_by.empty());
  // A decision after the timeout is told so.
  auto late = desk->decide(requested[0].id, {.approve = true, .reason = {}, .for_task = false, .key_id = {}});
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, agent::errc::approval_decided);
  EXPECT_NE(late.error().message.find("timed_out"), std::string::npos);
}

TEST_F(ApprovalDesk, TwoRequestsAreDecidedApartAndClosingCancelsTheRest) {
  ask("a");
  ask("b");
  ASSERT_EQ(desk->pending().size(), 2u);
  ASSERT_TRUE(desk->decide(requested[1].id, {.approve = true, .reason = {}, .for_task = false, .key_id = {}}));
  io.poll();
  ASSERT_TRUE(answers[1]);
  EXPECT_FALSE(answers[0]);
  EXPECT_TRUE(still_waiting_when_decided[0]);  // "a" still waits: the task stays awaiting_approval
  desk->close("the task was cancelled");
  io.poll();
  ASSERT_TRUE(answers[0]);
  EXPECT_EQ(answers[0]->outcome, approval_outcome::cancelled);
  EXPECT_EQ(answers[0]->reason, "the task was cancelled");
  // Asked after the end: cancelled at once, nobody is asked.
  ask("c");
  ASSERT_TRUE(answers[2]);
  EXPECT_EQ(answers[2]->outcome, approval_outcome::cancelled);
  EXPECT_EQ(requested.size(), 2u);
}

TEST_F(ApprovalDesk, TheWaitsOfAnEndedBlockAreCancelledAndLaterAsksStillWait) {
  ask("a");
  desk->cancel_waiting("the block ended before anyone decided");
  io.poll();
  ASSERT_TRUE(answers[0]);
  EXPECT_EQ(answers[0]->outcome, approval_outcome::cancelled);
  ask("b");
  EXPECT_FALSE(answers[1]);  // the desk is not closed: this one waits
  EXPECT_TRUE(desk->waiting());
}

TEST_F(ApprovalDesk, AtMostEightWaitAtOnceAndTheTaskWaitsFourTimeoutsInAll) {
  for (int i = 0; i < 9; ++i) ask("t" + std::to_string(i));
  EXPECT_EQ(requested.size(), 8u);
  ASSERT_TRUE(answers[8]);
  EXPECT_EQ(answers[8]->outcome, approval_outcome::denied);
  EXPECT_NE(answers[8]->reason.find("already wait"), std::string::npos) << answers[8]->reason;
  // Each of the eight waits out its timeout: 8 x 60 s waited in all, past the budget of 4 x 60 s.
  clock.advance(60s);
  io.restart();
  io.poll();
  ask("late");
  ASSERT_TRUE(answers[9]);
  EXPECT_EQ(answers[9]->outcome, approval_outcome::denied);
  EXPECT_NE(answers[9]->reason.find("4 x APPROVAL_TIMEOUT_MS"), std::string::npos) << answers[9]->reason;
}

TEST_F(ApprovalDesk, AnUpstreamElicitationDuringATaskIsDeclined) {
  std::optional<std::optional<json>> out;
  auto eliciting = [](approval_desk& d, std::optional<std::optional<json>>& o) -> asio::awaitable<void> {
    json params = json::object();  // a named local: GCC 12 and braced lists in co_await
    params["message"] = "Confirm?";
    o = co_await d.elicit(std::move(params));
  };
  asio::co_spawn(io, eliciting(*desk, out), asio::detached);
  io.restart();
  io.poll();
  ASSERT_TRUE(out && *out);
  EXPECT_EQ(**out, (json{{"action", "decline"}}));
}

}  // namespace
}  // namespace harness::agent
