// The tool policy: the file format and its errors, globs, first match, the
// annotation defaults, the call guard (deny, ask, maxCallsPerTask, PII
// grants), and the file followed while running (a bad version keeps the
// last good policy and shows in health).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harness/policy/call_guard.hpp"
#include "harness/policy/policy_source.hpp"
#include "harness/policy/tool_policy.hpp"
#include "support/fake_clock.hpp"

namespace harness::policy {
namespace {

using json = nlohmann::json;
const std::vector<std::string> kinds{"email", "phone", "ssn"};

tool_policy parse_ok(const char* text, approval_default fallback = approval_default::never) {
  auto parsed = tool_policy::parse(json::parse(text), kinds, fallback);
  EXPECT_TRUE(parsed) << parsed.error().describe();
  return parsed ? std::move(*parsed) : tool_policy();
}

std::string parse_error(const char* text) {
  auto parsed = tool_policy::parse(json::parse(text), kinds);
  EXPECT_FALSE(parsed) << text;
  if (parsed) return {};
  EXPECT_EQ(parsed.error().code, errc::invalid_policy);
  return parsed.error().message;
}

TEST(ToolPolicy, TheExampleOfTheDocsParsesAndTheFirstMatchDecides) {
  auto policy = parse_ok(R"({"rules": [
      {"tool": "mem__create_entities", "approval": "ask"},
      {"tool": "everything__*", "pii": "none", "maxCallsPerTask": 3},
      {"tool": "*", "approval": "never", "pii": "all"}]})");
  EXPECT_EQ(policy.size(), 3u);
  auto create = policy.decide("mem__create_entities", nullptr);
  EXPECT_EQ(create.approval, approval_mode::ask);
  EXPECT_EQ(create.reason, "rule 1 (mem__create_entities)");
  auto echo = policy.decide("everything__echo", nullptr);
  EXPECT_EQ(echo.approval, approval_mode::never);  // rule 2 gives none: the default, not rule 3's
  EXPECT_FALSE(echo.pii.all);
  EXPECT_TRUE(echo.pii.kinds.empty());
  EXPECT_EQ(echo.max_calls_per_task, 3u);
  auto read = policy.decide("fs__read_file", nullptr);
  EXPECT_TRUE(read.pii.all);
  EXPECT_FALSE(read.max_calls_per_task);
  EXPECT_EQ(read.reason, "rule 3 (*)");
}

TEST(ToolPolicy, WithoutARuleTheDefaultComesFromAnnotationsWhenAsked) {
  auto none = tool_policy();
  EXPECT_EQ(none.decide("x__y", {{"destructiveHint", true}}).approval, approval_mode::never);
  auto by_annotations = parse_ok(R"({"rules": []})", approval_default::annotations);
  EXPECT_EQ(by_annotations.decide("fs__write_file", {{"destructiveHint", true}}).approval, approval_mode::ask);
  EXPECT_EQ(by_annotations.decide("web__fetch", {{"openWorldHint", true}}).approval, approval_mode::ask);
  EXPECT_EQ(by_annotations.decide("fs__read_file", {{"readOnlyHint", true}}).approval, approval_mode::never);
  // A hint that is not a boolean (servers are untrusted) counts as absent.
  EXPECT_EQ(by_annotations.decide("x__y", {{"destructiveHint", "yes"}}).approval, approval_mode::never);
  EXPECT_EQ(by_annotations.decide("x__y", "not an object").approval, approval_mode::never);
  EXPECT_EQ(by_annotations.decide("fs__write_file", {{"destructiveHint", true}}).reason,
            "annotations (destructiveHint)");
  // A rule's approval wins over the annotations.
  auto ruled = parse_ok(R"({"rules": [{"tool": "fs__*", "approval": "never"}]})", approval_default::annotations);
  EXPECT_EQ(ruled.decide("fs__write_file", {{"destructiveHint", true}}).approval, approval_mode::never);
}

TEST(ToolPolicy, EveryMistakeInTheFileIsAnErrorThatNamesIt) {
  EXPECT_NE(parse_error(R"([])").find("JSON object"), std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [], "extra": 1})").find("unknown field \"extra\""), std::string::npos);
  EXPECT_NE(parse_error(R"({})").find("\"rules\""), std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"approval": "ask"}]})").find("rule 1 has no \"tool\""), std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"tool": "*"}, {"tool": "a", "approval": "maybe"}]})").find("rule 2"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"tool": "a", "aproval": "ask"}]})").find("unknown field \"aproval\""),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"tool": "a", "pii": ["email", "iban"]}]})").find("\"iban\""), std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"tool": "a", "pii": "some"}]})").find("\"pii\""), std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"tool": "a", "maxCallsPerTask": -1}]})").find("maxCallsPerTask"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"tool": ""}]})").find("\"tool\""), std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": ["fs__*"]})").find("must be an object"), std::string::npos);
}

TEST(ToolPolicy, RulesMayNameUsersAndARole) {
  auto policy = parse_ok(R"({"rules": [
      {"tool": "billing__*", "users": ["alice", "bob"], "approval": "never"},
      {"tool": "billing__*", "approval": "deny"},
      {"tool": "admin__*", "role": "user", "approval": "deny"},
      {"tool": "admin__*", "role": "admin", "approval": "ask"}]})");
  const caller_identity alice{"alice", false}, carol{"carol", false}, root{"carol", true};
  EXPECT_EQ(policy.decide("billing__charge", nullptr, alice).approval, approval_mode::never);
  EXPECT_EQ(policy.decide("billing__charge", nullptr, alice).reason, "rule 1 (billing__*)");
  EXPECT_EQ(policy.decide("billing__charge", nullptr, carol).approval, approval_mode::deny);
  EXPECT_EQ(policy.decide("billing__charge", nullptr, carol).reason, "rule 2 (billing__*)");
  EXPECT_EQ(policy.decide("billing__charge", nullptr).approval, approval_mode::deny) << "no user matches no list";
  EXPECT_EQ(policy.decide("admin__reset", nullptr, carol).approval, approval_mode::deny);
  EXPECT_EQ(policy.decide("admin__reset", nullptr, root).approval, approval_mode::ask);
  EXPECT_EQ(policy.decide("admin__reset", nullptr, root).reason, "rule 4 (admin__*)");

  EXPECT_NE(parse_error(R"({"rules": [{"tool": "a", "users": []}]})").find("\"users\""), std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"tool": "a", "users": "alice"}]})").find("\"users\""), std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"tool": "a", "users": ["../x"]}]})").find("not a user id"), std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"tool": "a", "role": "root"}]})").find("\"role\""), std::string::npos);
}

TEST(CallGuard, AppliesTheRulesOfItsUser) {
  auto source = fixed_policy(parse_ok(R"({"rules": [
      {"tool": "billing__*", "users": ["alice"], "maxCallsPerTask": 1},
      {"tool": "billing__*", "approval": "deny"}]})"));
  call_guard alice(source, nullptr, {"alice", false});
  call_guard bob(source, nullptr, {"bob", false});
  EXPECT_TRUE(alice.admit("billing__charge"));
  auto again = alice.admit("billing__charge");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, errc::call_limit);
  auto refused = bob.admit("billing__charge");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, errc::tool_denied);
}

TEST(ToolPolicy, GlobsMatchWholeNamesWithStarAndQuestionMark) {
  EXPECT_TRUE(glob_match("github__*", "github__create_issue"));
  EXPECT_FALSE(glob_match("github__*", "gitlab__create_issue"));
  EXPECT_TRUE(glob_match("*__delete_*", "fs__delete_file"));
  EXPECT_TRUE(glob_match("fs__?ead_file", "fs__read_file"));
  EXPECT_FALSE(glob_match("fs__read", "fs__read_file"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("a*b*c", "a-b-b-c"));
  EXPECT_FALSE(glob_match("a*b*c", "a-b-b-d"));
  // No exponential backtracking on a hostile pattern.
  EXPECT_FALSE(glob_match("*a*a*a*a*a*a*a*a*a*a*b", std::string(5000, 'a')));
}

TEST(CallGuard, DeniesAsksAndCountsCallsPerTool) {
  auto source = fixed_policy(parse_ok(R"({"rules": [
      {"tool": "fs__delete_*", "approval": "deny"},
      {"tool": "mem__create_entities", "approval": "ask"},
      {"tool": "everything__echo", "maxCallsPerTask": 2, "pii": ["email"]}]})"));
  call_guard guard(source, nullptr);
  auto denied = guard.admit("fs__delete_file");
  ASSERT_FALSE(denied);
  EXPECT_EQ(denied.error().code, errc::tool_denied);
  EXPECT_NE(denied.error().message.find("rule 1 (fs__delete_*)"), std::string::npos);
  auto asked = guard.admit("mem__create_entities");
  ASSERT_TRUE(asked);
  ASSERT_TRUE(asked->ask);
  EXPECT_EQ(*asked->ask, "rule 2 (mem__create_entities)");
  EXPECT_FALSE(guard.admit("everything__echo")->ask);
  EXPECT_TRUE(guard.admit("everything__echo"));
  auto third = guard.admit("everything__echo");
  ASSERT_FALSE(third);
  EXPECT_EQ(third.error().code, errc::call_limit);
  EXPECT_NE(third.error().message.find("2 calls of everything__echo"), std::string::npos);
  EXPECT_TRUE(guard.admit("fs__read_file"));  // no rule: allowed, not counted against others
  EXPECT_TRUE(guard.grant("everything__echo").allows("email"));
  EXPECT_FALSE(guard.grant("everything__echo").allows("phone"));
  EXPECT_TRUE(guard.grant("fs__read_file").allows("phone"));
  // Another task's guard has its own counts.
  call_guard other(source, nullptr);
  EXPECT_TRUE(other.admit("everything__echo"));
}

TEST(CallGuard, ReadsAnnotationsOnlyWhenThePolicyUsesThem) {
  int lookups = 0;
  annotations_lookup lookup = [&](const std::string&) {
    ++lookups;
    return json{{"destructiveHint", true}};
  };
  call_guard plain(fixed_policy(), lookup);
  EXPECT_TRUE(plain.admit("fs__write_file"));
  EXPECT_EQ(lookups, 0);
  call_guard annotated(fixed_policy(parse_ok(R"({"rules": []})", approval_default::annotations)), lookup);
  EXPECT_TRUE(annotated.admit("fs__write_file")->ask);
  EXPECT_EQ(lookups, 1);
}

TEST(CallGuard, AnApprovalForTheTaskCoversLaterCallsAndTheLimitStillHolds) {
  auto source = fixed_policy(parse_ok(R"({"rules": [
      {"tool": "mem__create_entities", "approval": "ask", "maxCallsPerTask": 3},
      {"tool": "mem__delete_*", "approval": "ask"}]})"));
  call_guard guard(source, nullptr);
  ASSERT_TRUE(guard.admit("mem__create_entities")->ask);
  ASSERT_TRUE(guard.approved("mem__create_entities", false));  // this call only
  ASSERT_TRUE(guard.admit("mem__create_entities")->ask);       // so the next one asks again
  ASSERT_TRUE(guard.approved("mem__create_entities", true));
  EXPECT_FALSE(guard.admit("mem__create_entities")->ask);  // approved for the task: counted at once
  // Three calls made: the fourth is refused before anyone is asked.
  auto fourth = guard.admit("mem__create_entities");
  ASSERT_FALSE(fourth);
  EXPECT_EQ(fourth.error().code, errc::call_limit);
  // Another tool of the same rule family still asks.
  EXPECT_TRUE(guard.admit("mem__delete_entities")->ask);
}

TEST(CallGuard, ApprovalsThatOutrunTheLimitAreRefusedWhenTheyArrive) {
  call_guard guard(fixed_policy(parse_ok(R"({"rules": [{"tool": "t", "approval": "ask", "maxCallsPerTask": 1}]})")),
                   nullptr);
  // Two calls in flight together both ask; only one fits the limit.
  ASSERT_TRUE(guard.admit("t")->ask);
  ASSERT_TRUE(guard.admit("t")->ask);
  EXPECT_TRUE(guard.approved("t", false));
  auto second = guard.approved("t", false);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, errc::call_limit);
}

class PolicyFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() / ("policy-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    file = dir / "policy.json";
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  void write(const std::string& text) {
    // A new file (rename over), as editors and config management write it.
    auto tmp = dir / "policy.json.tmp";
    std::ofstream(tmp) << text;
    std::filesystem::rename(tmp, file);
  }
  std::filesystem::path dir, file;
  harness::testing::fake_clock clock;
};

TEST_F(PolicyFile, AStartWithABadFileIsAnErrorNamingTheFile) {
  auto missing = open_policy_file(file, clock, {.known_kinds = kinds});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find(file.string()), std::string::npos);
  write("{not json");
  auto broken = open_policy_file(file, clock, {.known_kinds = kinds});
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("not valid JSON"), std::string::npos);
  write(R"({"rules": )" + std::string(100000, '[') + std::string(100000, ']') + "}");
  auto deep = open_policy_file(file, clock, {.known_kinds = kinds});
  ASSERT_FALSE(deep);
  EXPECT_NE(deep.error().message.find("nests deeper than 256 levels"), std::string::npos) << deep.error().message;
  write(R"({"rules": [{"tool": "a", "colour": "red"}]})");
  auto unknown = open_policy_file(file, clock, {.known_kinds = kinds});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown field \"colour\""), std::string::npos);
}

TEST_F(PolicyFile, ChangesApplyWithinASecondAndABadOneKeepsTheLastGoodPolicy) {
  write(R"({"rules": [{"tool": "a", "approval": "deny"}]})");
  auto opened = open_policy_file(file, clock, {.known_kinds = kinds});
  ASSERT_TRUE(opened) << opened.error().describe();
  auto source = *opened;
  EXPECT_EQ(source->current()->decide("a", nullptr).approval, approval_mode::deny);
  EXPECT_TRUE(source->health()->check().up);

  write(R"({"rules": [{"tool": "a", "approval": "never"}, {"tool": "b", "approval": "deny"}]})");
  EXPECT_EQ(source->current()->decide("a", nullptr).approval, approval_mode::deny);  // not yet checked
  clock.advance(std::chrono::seconds(1));
  EXPECT_EQ(source->current()->decide("a", nullptr).approval, approval_mode::never);
  EXPECT_EQ(source->current()->size(), 2u);

  write(R"({"rules": [{"tool": "a", "approval": "sometimes"}]})");
  clock.advance(std::chrono::seconds(1));
  EXPECT_EQ(source->current()->size(), 2u);  // the last good one stays
  auto health = source->health()->check();
  EXPECT_FALSE(health.up);
  EXPECT_FALSE(health.required);
  EXPECT_NE(health.detail["lastError"].get<std::string>().find("\"approval\""), std::string::npos);

  write(R"({"rules": []})");
  clock.advance(std::chrono::seconds(1));
  EXPECT_EQ(source->current()->size(), 0u);
  EXPECT_TRUE(source->health()->check().up);
  EXPECT_EQ(source->health()->name(), "policy");
}

}  // namespace
}  // namespace harness::policy
