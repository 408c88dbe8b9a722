#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness/pii/errors.hpp"
#include "harness/pii/pii_vault.hpp"

namespace harness::pii {
namespace {

TEST(PiiVault, SameValueSameTokenAndNumbersPerKind) {
  pii_vault v;
  EXPECT_EQ(v.token_for("EMAIL", "a@b.com"), "[EMAIL_1]");
  EXPECT_EQ(v.token_for("EMAIL", "c@d.com"), "[EMAIL_2]");
  EXPECT_EQ(v.token_for("PHONE", "415-555-2671"), "[PHONE_1]");
  EXPECT_EQ(v.token_for("EMAIL", "a@b.com"), "[EMAIL_1]");
  EXPECT_EQ(v.size(), 3u);
  ASSERT_NE(v.value_of("EMAIL_2"), nullptr);
  EXPECT_EQ(*v.value_of("EMAIL_2"), "c@d.com");
  EXPECT_EQ(v.value_of("EMAIL_3"), nullptr);
  EXPECT_EQ(v.issue_index("PHONE_1"), 2u);
  EXPECT_EQ(v.issue_index("PHONE_2"), pii_vault::npos);
}

TEST(PiiVault, TokenShapedGrammar) {
  EXPECT_EQ(token_shaped_prefix("[EMAIL_1] rest"), "EMAIL_1");
  EXPECT_EQ(token_shaped_prefix("[CUSTOM_ID_12]"), "CUSTOM_ID_12");
  EXPECT_EQ(token_shaped_prefix("[A_1_2]"), "A_1_2");
  EXPECT_EQ(token_shaped_prefix("[EMAIL_0]"), "");
  EXPECT_EQ(token_shaped_prefix("[email_1]"), "");
  EXPECT_EQ(token_shaped_prefix("[EMAIL1]"), "");
  EXPECT_EQ(token_shaped_prefix("[_1]"), "");
  EXPECT_EQ(token_shaped_prefix("[EMAIL_1"), "");
  EXPECT_EQ(token_shaped_prefix("[EMAIL_1x]"), "");
}

TEST(PiiVault, DetokenizeRestoresIssuedTokensOnly) {
  pii_vault v;
  v.token_for("EMAIL", "a@b.com");
  v.token_for("TOKEN", "[EMAIL_1]");
  EXPECT_EQ(detokenize("to [EMAIL_1], cc [EMAIL_2] and [TOKEN_1]]", v), "to a@b.com, cc [EMAIL_2] and [EMAIL_1]]");
  EXPECT_EQ(detokenize("[[EMAIL_1]", v), "[a@b.com");
  EXPECT_EQ(detokenize("", v), "");
}

TEST(PiiVault, DetokenizeWithAKindFilterRestoresOnlyThoseKinds) {
  pii_vault v;
  v.token_for("EMAIL", "a@b.com");
  v.token_for("PHONE", "415-555-2671");
  v.token_for("CUSTOM_ID", "X-1");
  const kind_filter emails_only = [](std::string_view kind) { return kind == "EMAIL"; };
  EXPECT_EQ(detokenize("[EMAIL_1] [PHONE_1] [CUSTOM_ID_1]", v, emails_only), "a@b.com [PHONE_1] [CUSTOM_ID_1]");
  // The kind is the body up to its last '_': a kind with '_' in it is matched whole.
  const kind_filter custom = [](std::string_view kind) { return kind == "CUSTOM_ID"; };
  EXPECT_EQ(detokenize("[EMAIL_1] [CUSTOM_ID_1]", v, custom), "[EMAIL_1] X-1");
  EXPECT_EQ(detokenize("[EMAIL_1]", v, nullptr), "a@b.com");  // no filter: every kind
}

TEST(PiiVault, JsonRoundTripKeepsAnyBytes) {
  pii_vault v;
  v.token_for("EMAIL", "a@b.com");
  v.token_for("CUSTOM_ID", std::string("ID-\xff\xfe", 5));
  v.token_for("PHONE", "415-555-2671");
  nlohmann::json j = v.to_json();
  std::string dumped = j.dump();  // must not throw on the non-UTF-8 value
  auto back = pii_vault::from_json(nlohmann::json::parse(dumped));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->to_json(), j);
  EXPECT_EQ(*back->value_of("CUSTOM_ID_1"), std::string("ID-\xff\xfe", 5));
  EXPECT_EQ(back->token_for("EMAIL", "a@b.com"), "[EMAIL_1]");
  EXPECT_EQ(back->token_for("EMAIL", "new@b.com"), "[EMAIL_2]");  // numbering goes on
}

TEST(PiiVault, FromJsonRejectsMalformedInput) {
  using nlohmann::json;
  EXPECT_FALSE(pii_vault::from_json(json::array()));
  EXPECT_FALSE(pii_vault::from_json(json{{"entries", json::array({json{{"token", "bad"}, {"value", "x"}}})}}));
  EXPECT_FALSE(pii_vault::from_json(json{{"entries", json::array({json{{"token", "EMAIL_1"}}})}}));
  auto dup =
      json{{"entries",
            json::array({json{{"token", "EMAIL_1"}, {"value", "x"}}, json{{"token", "EMAIL_1"}, {"value", "y"}}})}};
  auto r = pii_vault::from_json(dup);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, harness::pii::errc::invalid_vault);
  EXPECT_FALSE(pii_vault::from_json(json{{"entries", json::array({json{{"token", "EMAIL_1"}, {"value", "x"}},
                                                                  json{{"token", "EMAIL_2"}, {"value", "x"}}})}}));
  EXPECT_FALSE(pii_vault::from_json(
      json{{"entries", json::array({json{{"token", "EMAIL_99999999999999999999999"}, {"value", "x"}}})}}));
}

}  // namespace
}  // namespace harness::pii
