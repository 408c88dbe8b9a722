#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness/pii/errors.hpp"
#include "harness/pii/pii_censor.hpp"

namespace harness::pii {
namespace {

using nlohmann::json;

TEST(PiiJson, CensorsValueByValueIncludingKeysAndNumbers) {
  auto c = pii_censor_builder().build();
  ASSERT_TRUE(c);
  pii_vault vault;
  json in = json::parse(R"({
    "user": {"email": "a@b.com", "phones": ["415-555-2671", 4155552671, 14155552671]},
    "a@b.com": true, "note": "mail \"a@b.com\" or c@d.org", "count": 12, "ratio": 0.5, "none": null,
    "card": 4111111111111111, "order": 1234567890123
  })");
  auto out = c->tokenize_json(in, vault);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ((*out)["user"]["email"], "[EMAIL_1]");
  EXPECT_EQ((*out)["user"]["phones"][0], "[PHONE_1]");
  EXPECT_EQ((*out)["user"]["phones"][1], 4155552671);  // bare 10 digits are not a phone number
  EXPECT_EQ((*out)["user"]["phones"][2], 14155552671);
  EXPECT_TRUE(out->contains("[EMAIL_1]"));
  EXPECT_FALSE(out->contains("a@b.com"));
  EXPECT_EQ((*out)["note"], "mail \"[EMAIL_1]\" or [EMAIL_2]");
  EXPECT_EQ((*out)["count"], 12);
  EXPECT_EQ((*out)["ratio"], 0.5);
  EXPECT_TRUE((*out)["none"].is_null());
  EXPECT_EQ((*out)["card"], "[CARD_1]");  // a card stored as a number becomes its token string
  EXPECT_EQ((*out)["order"], 1234567890123);
  // Valid JSON that parses back to the same document.
  EXPECT_EQ(json::parse(out->dump()), *out);

  auto back = detokenize_json(*out, vault);
  ASSERT_TRUE(back);
  json expected = in;
  expected["card"] = "4111111111111111";  // restored as the string it was tokenized to
  EXPECT_EQ(*back, expected);
}

TEST(PiiJson, NonUtf8StringsFromRawTextSurviveAsJson) {
  auto c = pii_censor_builder().build();
  ASSERT_TRUE(c);
  pii_vault vault;
  json in = {{"k", "x@y.com"}};
  auto out = c->tokenize_json(in, vault);
  ASSERT_TRUE(out);
  EXPECT_TRUE(nlohmann::json::accept(out->dump()));
}

TEST(PiiJson, DeepNestingIsAnErrorNotACrash) {
  auto c = pii_censor_builder().build();
  ASSERT_TRUE(c);
  pii_vault vault;
  std::string deep(2000, '[');
  deep += std::string(2000, ']');
  json in = json::parse(deep);
  auto out = c->tokenize_json(in, vault);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, harness::pii::errc::json_too_deep);
  EXPECT_FALSE(detokenize_json(in, vault));
}

}  // namespace
}  // namespace harness::pii
