#include <gtest/gtest.h>

#include <thread>

#include "harness/pii/errors.hpp"
#include "harness/pii/pii_censor.hpp"

namespace harness::pii {
namespace {

pii_censor make_censor() {
  auto c = pii_censor_builder().build();
  EXPECT_TRUE(c);
  return std::move(*c);
}

std::vector<std::string> kinds_in(const pii_censor& c, std::string_view text) {
  std::vector<std::string> kinds;
  for (const auto& d : c.detect(text))
    kinds.push_back(d.kind + ":" + std::string(text.substr(d.start, d.end - d.start)));
  return kinds;
}

using strings = std::vector<std::string>;

TEST(PiiCensor, FindsEveryKindWithExactSpans) {
  auto c = make_censor();
  EXPECT_EQ(kinds_in(c, "mail john.smith@example.com now"), strings{"email:john.smith@example.com"});
  EXPECT_EQ(kinds_in(c, "call (415) 555-2671 or +44 20 7946 0958."),
            (strings{"phone:(415) 555-2671", "phone:+44 20 7946 0958"}));
  EXPECT_EQ(kinds_in(c, "ext: 415-555-2671 x204, e164 +14155552671"),
            (strings{"phone:415-555-2671 x204", "phone:+14155552671"}));
  EXPECT_EQ(kinds_in(c, "SSN 123-45-6789."), strings{"ssn:123-45-6789"});
  EXPECT_EQ(kinds_in(c, "card 4111 1111 1111 1111, amex 3782-822463-10005"),
            (strings{"card:4111 1111 1111 1111", "card:3782-822463-10005"}));
  EXPECT_EQ(kinds_in(c, "from 192.168.0.17:8080"), strings{"ipv4:192.168.0.17"});
  EXPECT_EQ(kinds_in(c, "host 2001:db8::8a2e:370:7334 and ::ffff:192.0.2.128"),
            (strings{"ipv6:2001:db8::8a2e:370:7334", "ipv6:::ffff:192.0.2.128"}));
}

TEST(PiiCensor, IgnoresLookAlikes) {
  auto c = make_censor();
  for (const char* text :
       {"order ORD-2023-004512 shipped", "at 2023-10-12T14:30:00Z", "ts 1697040000123", "Chrome/118.0.5993.88",
        "version 10.0.19045.2364", "release 1.2.3.4", "nums 1.2.3.4.5", "id 123e4567-e89b-12d3-a456-426614174000",
        "price $1,234.56", "ISBN 978-3-16-148410-0", "card 4111 1111 1111 1112", "due 12/10/2023", "ptr 0x7fffdeadbeef",
        "ssn 666-12-3456", "ip 256.1.1.1", "mac 00:1A:2B:3C:4D:5E", "std::string x; a::b", "at 12:30:45",
        "user@localhost"}) {
    EXPECT_EQ(kinds_in(c, text), strings{}) << text;
  }
}

TEST(PiiCensor, TokenizeIsStableAndReversible) {
  auto c = make_censor();
  pii_vault vault;
  std::string in = "a@b.com wrote to c@d.org and a@b.com; call 415-555-2671";
  std::vector<detection> found;
  std::string out = c.tokenize(in, vault, token_policy::escape_all, &found);
  EXPECT_EQ(out, "[EMAIL_1] wrote to [EMAIL_2] and [EMAIL_1]; call [PHONE_1]");
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[3].kind, "phone");
  EXPECT_EQ(found[3].start, in.find("415"));
  EXPECT_EQ(found[3].token, "[PHONE_1]");
  EXPECT_EQ(detokenize(out, vault), in);
  // A later call with the same vault reuses the tokens.
  EXPECT_EQ(c.tokenize("again c@d.org", vault), "again [EMAIL_2]");
}

TEST(PiiCensor, TokenShapedInputIsEscapedSoItCannotCollide) {
  auto c = make_censor();
  pii_vault vault;
  std::string in = "bob@x.com said [EMAIL_1] and [TOKEN_1] are placeholders";
  std::string out = c.tokenize(in, vault);
  EXPECT_EQ(out, "[EMAIL_1] said [TOKEN_1] and [TOKEN_2] are placeholders");
  EXPECT_EQ(detokenize(out, vault), in);
  // Later input that merely looks like our token is still escaped under escape_all...
  std::string later = "literal [EMAIL_1]";
  EXPECT_EQ(detokenize(c.tokenize(later, vault), vault), later);
  // ...while text from inside the token domain keeps the tokens issued before.
  EXPECT_EQ(c.tokenize("sandbox saw [EMAIL_1] and [EMAIL_9]", vault, token_policy::keep_issued),
            "sandbox saw [EMAIL_1] and [TOKEN_3]");
  // Tokens the vault never issued come back unchanged from detokenize.
  EXPECT_EQ(detokenize("[PHONE_7] [EMAIL_1]", vault), "[PHONE_7] bob@x.com");
}

TEST(PiiCensor, KeepIssuedOnlyTrustsTokensFromEarlierCalls) {
  auto c = make_censor();
  pii_vault vault;
  std::string in = "bob@x.com then [EMAIL_1]";  // EMAIL_1 is issued within this very call
  std::string out = c.tokenize(in, vault, token_policy::keep_issued);
  EXPECT_EQ(out, "[EMAIL_1] then [TOKEN_1]");
  EXPECT_EQ(detokenize(out, vault), in);
}

TEST(PiiCensor, DetectorsCanBeSwitchedOff) {
  pii_censor_builder b;
  ASSERT_TRUE(b.enable("email", false));
  ASSERT_TRUE(b.enable("ipv4", false));
  EXPECT_FALSE(b.enable("nope", false));
  auto c = b.build();
  ASSERT_TRUE(c);
  EXPECT_EQ(kinds_in(*c, "a@b.com 10.0.0.1 123-45-6789"), strings{"ssn:123-45-6789"});
  EXPECT_EQ(c->detector_names(), (strings{"card", "ssn", "phone", "ipv6"}));
}

TEST(PiiCensor, CustomPatternsFromCode) {
  pii_censor_builder b;
  ASSERT_TRUE(b.add_pattern("custom_id", R"(\bID-\d{6}\b)"));
  ASSERT_TRUE(b.add_pattern("ticket", R"(\bT(\d+)-(\d+)\b)"));  // capture groups of its own are fine
  auto c = b.build();
  ASSERT_TRUE(c);
  pii_vault vault;
  std::string in = "ID-123456 / T12-34 / ID-12345 / a@b.com / ID-123456";
  std::string out = c->tokenize(in, vault);
  EXPECT_EQ(out, "[CUSTOM_ID_1] / [TICKET_1] / ID-12345 / [EMAIL_1] / [CUSTOM_ID_1]");
  EXPECT_EQ(detokenize(out, vault), in);
}

TEST(PiiCensor, BadPatternsFailWithNameAndRe2Message) {
  pii_censor_builder b;
  auto bad = b.add_pattern("broken", "ID-(\\d+");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, harness::pii::errc::invalid_pattern);
  EXPECT_NE(bad.error().message.find("'broken'"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("missing )"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(b.add_pattern("look", "(?<=a)b"));  // RE2 has no look-behind
  EXPECT_FALSE(b.add_pattern("empty", "x*"));      // matches nothing
  EXPECT_FALSE(b.add_pattern("Email", "x+"));      // taken by a built-in
  EXPECT_FALSE(b.add_pattern("token", "x+"));      // reserved for escaped literals
  EXPECT_FALSE(b.add_pattern("9lives", "x+"));     // malformed name
  ASSERT_TRUE(b.add_pattern("dup", "x+"));
  EXPECT_FALSE(b.add_pattern("DUP", "y+"));
}

TEST(PiiCensor, InvalidUtf8AndEdgeBytesNeverBreak) {
  auto c = make_censor();
  pii_vault vault;
  std::string in("\xff\xfe a@b.com \xc3\x28 \x00 415-555-2671 \xe2\x82", 40);
  std::string out = c.tokenize(in, vault);
  EXPECT_NE(out.find("[EMAIL_1]"), std::string::npos);
  EXPECT_NE(out.find("[PHONE_1]"), std::string::npos);
  EXPECT_EQ(detokenize(out, vault), in);
  EXPECT_EQ(c.tokenize("", vault), "");
  EXPECT_EQ(c.tokenize("no pii here", vault), "no pii here");
}

TEST(PiiCensor, ValidationFailureFallsBackToAnotherKindAtTheSameStart) {
  // "1-415-555-2671-0" fails as a whole; a Luhn-failing card-shaped run next
  // to a phone number must not hide the phone number.
  auto c = make_censor();
  EXPECT_EQ(kinds_in(c, "n 4111111111111112 / +1 415 555 2671"), strings{"phone:+1 415 555 2671"});
  // A custom pattern that reads "415-555-2671 x" longer than the phone does
  // but is switched to a validator-less kind still wins: custom beats built-in.
  pii_censor_builder b;
  ASSERT_TRUE(b.add_pattern("office", R"(\d{3}-555-\d{4} office)"));
  auto with_custom = b.build();
  ASSERT_TRUE(with_custom);
  EXPECT_EQ(kinds_in(*with_custom, "415-555-2671 office"), strings{"office:415-555-2671 office"});
}

TEST(PiiCensor, LongRunsStayLinear) {
  auto c = make_censor();
  pii_vault vault;
  std::string in(1 << 20, 'a');
  in += "@example.com";
  std::string out = c.tokenize(in, vault);  // a 1 MiB local part is not an address
  EXPECT_EQ(out.substr(0, 10), "aaaaaaaaaa");
  EXPECT_EQ(detokenize(out, vault), in);
}

// Text made of one trigger repeated (colons, '@', '+', digits and dots) is
// found in linear time too: a quadratic search would blow ctest's timeout.
TEST(PiiCensor, LongRunsOfTriggerCharactersStayLinear) {
  auto c = make_censor();
  for (std::string_view unit : {"::", "a:", "1:2:", "x@", "+1", "1.2.3.4.", "12 34 ", "[A_1]"}) {
    std::string in;
    while (in.size() < (1u << 20)) in += unit;
    pii_vault vault;
    EXPECT_EQ(detokenize(c.tokenize(in, vault), vault), in) << unit;
  }
}

// One compiled censor shared by several threads, each with its own vault,
// gives every thread the same result as a lone caller.
TEST(PiiCensor, SharedCensorAcrossThreadsWithOwnVaults) {
  const auto c = make_censor();
  std::string text;
  for (int i = 0; i < 2000; ++i)
    text += "user" + std::to_string(i % 97) + "@example.com called 415-555-2671 from 10.0.0." +
            std::to_string(i % 250) + "\n";
  pii_vault reference_vault;
  const std::string expected = c.tokenize(text, reference_vault);
  std::vector<std::string> results(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < results.size(); ++t) {
    threads.emplace_back([&, t] {
      pii_vault vault;
      results[t] = c.tokenize(text, vault);
      if (detokenize(results[t], vault) != text) results[t] = "round trip failed";
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& r : results) EXPECT_EQ(r, expected);
}

}  // namespace
}  // namespace harness::pii
