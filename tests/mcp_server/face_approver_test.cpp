// The MCP face's approver with a client played by the test: the elicitation
// it sends, and how each answer (accept, decline, cancel, an error, none at
// all) and a client without the capability turn into the approval's outcome.
#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "face_approver.hpp"
#include "support/fake_clock.hpp"

namespace harness::mcp_server {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using json = nlohmann::json;
using policy::approval_outcome;

class FaceApprover : public ::testing::Test {
 protected:
  policy::approval_request request{"mem__create_entities",
                                   {{"entities", json::array({{{"name", "jane"}}})}},
                                   "await callMCPTool('mem__create_entities', ...)",
                                   "rule 1 (mem__create_entities)"};

  // Asks once; `client` sees each message sent and may answer through deliver().
  std::optional<policy::approval_answer> ask_with(std::function<void(const json&)> client) {
    std::optional<policy::approval_answer> out;
    approver->set_channel([this, client](json message) {
      sent.push_back(message);
      if (client) client(message);
    });
    auto asking = [](face_approver& a, policy::approval_request r,
                     std::optional<policy::approval_answer>& answer) -> asio::awaitable<void> {
      answer = co_await a.ask(std::move(r));
    };
    asio::co_spawn(io, asking(*approver, request, out), asio::detached);
    io.restart();
    io.poll();
    if (!out) {  // no answer came: the approval timeout passes
      clock.advance(200ms);
      io.restart();
      io.poll();
    }
    return out;
  }

  void answer_with(const json& result) {
    // The client answers after the request went out, as a separate message.
    asio::post(io, [this, result] {
      EXPECT_TRUE(approver->deliver({{"jsonrpc", "2.0"}, {"id", sent.front()["id"]}, {"result", result}}));
    });
  }

  asio::io_context io;
  harness::testing::fake_clock clock;
  std::shared_ptr<face_approver> approver =
      std::make_shared<face_approver>(io.get_executor(), clock, 200ms, "mcp_s1", "key_a11ce0000000");
  std::vector<json> sent;
};

TEST_F(FaceApprover, TheElicitationSaysWhichToolWithWhatAndWhy) {
  auto params = approval_elicitation(request);
  EXPECT_EQ(params["mode"], "form");
  const std::string message = params["message"];
  EXPECT_NE(message.find("mem__create_entities"), std::string::npos);
  EXPECT_NE(message.find("\"jane\""), std::string::npos);
  EXPECT_NE(message.find("rule 1 (mem__create_entities)"), std::string::npos);
  const auto& schema = params["requestedSchema"];
  EXPECT_EQ(schema["type"], "object");
  EXPECT_EQ(schema["properties"]["scope"]["enum"], json::array({"call", "task"}));
  EXPECT_TRUE(schema["required"].empty());  // accepting with nothing filled in approves this call
  // Long arguments are cut for the person reading them.
  request.arguments = {{"text", std::string(10000, 'x')}};
  EXPECT_LT(approval_elicitation(request)["message"].get<std::string>().size(), 2500u);
}

TEST_F(FaceApprover, AcceptApprovesWithTheScopeTheClientChose) {
  approver->set_client_capabilities({{"elicitation", json::object()}});
  auto answer = ask_with([this](const json&) {
    answer_with({{"action", "accept"}, {"content", {{"scope", "task"}}}});
  });
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->outcome, approval_outcome::approved);
  EXPECT_TRUE(answer->for_task);
  EXPECT_EQ(answer->decided_by, "key_a11ce0000000");
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["method"], "elicitation/create");
  EXPECT_EQ(sent[0]["id"], "harness-1");
}

TEST_F(FaceApprover, DeclineCancelAndAnErrorDeny) {
  approver->set_client_capabilities({{"elicitation", {{"form", json::object()}}}});
  auto declined = ask_with([this](const json&) { answer_with({{"action", "decline"}}); });
  ASSERT_TRUE(declined);
  EXPECT_EQ(declined->outcome, approval_outcome::denied);
  EXPECT_EQ(declined->reason, "the user declined");
  sent.clear();
  auto dismissed = ask_with([this](const json&) { answer_with({{"action", "cancel"}}); });
  ASSERT_TRUE(dismissed);
  EXPECT_EQ(dismissed->outcome, approval_outcome::denied);
  sent.clear();
  auto failed = ask_with([this](const json& m) {
    asio::post(io, [this, id = m["id"]] {
      approver->deliver({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", -32601}, {"message", "no handler"}}}});
    });
  });
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->outcome, approval_outcome::denied);
  EXPECT_NE(failed->reason.find("no handler"), std::string::npos);
}

TEST_F(FaceApprover, NoAnswerInTimeIsATimeoutAndTheClientIsToldToStop) {
  approver->set_client_capabilities({{"elicitation", json::object()}});
  auto answer = ask_with(nullptr);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->outcome, approval_outcome::timed_out);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[1]["method"], "notifications/cancelled");
  EXPECT_EQ(sent[1]["params"]["requestId"], sent[0]["id"]);
  // A late answer finds nobody waiting.
  EXPECT_FALSE(approver->deliver({{"jsonrpc", "2.0"}, {"id", sent[0]["id"]}, {"result", {{"action", "accept"}}}}));
}

TEST_F(FaceApprover, AClientWithoutTheCapabilityIsNeverAsked) {
  approver->set_client_capabilities({{"sampling", json::object()}});
  auto answer = ask_with(nullptr);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->outcome, approval_outcome::denied);
  EXPECT_NE(answer->reason.find("declared no elicitation capability"), std::string::npos);
  EXPECT_TRUE(sent.empty());
  // URL mode alone is not the form this asks with.
  approver->set_client_capabilities({{"elicitation", {{"url", json::object()}}}});
  EXPECT_FALSE(approver->can_elicit());
}

TEST_F(FaceApprover, AConnectionLinkGoesToAClientThatOpensLinksAsAUrlElicitation) {
  auto offer = [this]() {
    std::optional<std::optional<std::string>> out;
    auto asking = [](face_approver& a, std::optional<std::optional<std::string>>& answer) -> asio::awaitable<void> {
      answer = co_await a.elicit_url("https://auth.example/authorize?state=s1", "Connect your account to notes.");
    };
    asio::co_spawn(io, asking(*approver, out), asio::detached);
    io.restart();
    io.poll();
    return out;
  };
  approver->set_channel([this](json message) {
    sent.push_back(message);
    answer_with({{"action", "accept"}});
  });
  // A form-only client is not offered the link this way (the note carries it instead).
  approver->set_client_capabilities({{"elicitation", {{"form", json::object()}}}});
  EXPECT_FALSE(approver->can_elicit_url());
  auto unasked = offer();
  ASSERT_TRUE(unasked);
  EXPECT_FALSE(*unasked);
  EXPECT_TRUE(sent.empty());

  approver->set_client_capabilities({{"elicitation", {{"url", json::object()}}}});
  EXPECT_TRUE(approver->can_elicit_url());
  auto accepted = offer();
  ASSERT_TRUE(accepted && *accepted);
  EXPECT_EQ(**accepted, "accept");
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["method"], "elicitation/create");
  const auto& params = sent[0]["params"];
  EXPECT_EQ(params["mode"], "url");
  EXPECT_EQ(params["url"], "https://auth.example/authorize?state=s1");
  EXPECT_EQ(params["message"], "Connect your account to notes.");
  EXPECT_TRUE(params["elicitationId"].is_string() && !params["elicitationId"].get<std::string>().empty());
  EXPECT_FALSE(params.contains("requestedSchema"));
}

}  // namespace
}  // namespace harness::mcp_server
