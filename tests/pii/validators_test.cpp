#include <gtest/gtest.h>

#include <string>

#include "validators.hpp"

namespace harness::pii {
namespace {

// Runs a validator on the whole of `s`, or on `s` inside `before` and `after` context.
bool check(validator_fn f, const std::string& s, const std::string& before = "", const std::string& after = "") {
  std::string text = before + s + after;
  return f(text, before.size(), before.size() + s.size());
}

TEST(PiiValidators, Luhn) {
  EXPECT_TRUE(luhn_valid("4111111111111111"));
  EXPECT_TRUE(luhn_valid("4111 1111 1111 1111"));
  EXPECT_TRUE(luhn_valid("378282246310005"));
  EXPECT_FALSE(luhn_valid("4111111111111112"));
  EXPECT_FALSE(luhn_valid(""));
}

TEST(PiiValidators, Email) {
  EXPECT_TRUE(check(valid_email, "john.smith@example.com"));
  EXPECT_TRUE(check(valid_email, "a+b@mail.co.uk"));
  EXPECT_FALSE(check(valid_email, "john..smith@example.com"));
  EXPECT_FALSE(check(valid_email, "john.@example.com"));
  EXPECT_FALSE(check(valid_email, "john@-example.com"));
  EXPECT_FALSE(check(valid_email, "john@example..com"));
  EXPECT_FALSE(check(valid_email, "john@example.c0m"));
  EXPECT_FALSE(check(valid_email, std::string(65, 'a') + "@example.com"));
}

TEST(PiiValidators, Phone) {
  EXPECT_TRUE(check(valid_phone, "(415) 555-2671"));
  EXPECT_TRUE(check(valid_phone, "415-555-2671"));
  EXPECT_TRUE(check(valid_phone, "+1 415 555 2671"));
  EXPECT_TRUE(check(valid_phone, "+14155552671"));
  EXPECT_TRUE(check(valid_phone, "415.555.2671 x204"));
  EXPECT_TRUE(check(valid_phone, "+44 20 7946 0958"));
  EXPECT_TRUE(check(valid_phone, "0044 20 7946 0958"));
  EXPECT_FALSE(check(valid_phone, "008100 1713", "3633 "));  // inside a digit-group run
  EXPECT_FALSE(check(valid_phone, "0081 1713 22"));          // "00" form needs 10+ digits
  EXPECT_FALSE(check(valid_phone, "123-555-2671"));          // area code starts with 1
  EXPECT_FALSE(check(valid_phone, "415-155-2671"));          // exchange starts with 1
  EXPECT_FALSE(check(valid_phone, "+1 123 555 2671"));
  EXPECT_FALSE(check(valid_phone, "+44 20 79"));            // too short
  EXPECT_FALSE(check(valid_phone, "415-555-2671", "12-"));  // part of a longer dashed number
  EXPECT_FALSE(check(valid_phone, "415-555-2671", "", "-9"));
}

TEST(PiiValidators, Ssn) {
  EXPECT_TRUE(check(valid_ssn, "123-45-6789"));
  EXPECT_TRUE(check(valid_ssn, "123 45 6789"));
  EXPECT_FALSE(check(valid_ssn, "000-45-6789"));
  EXPECT_FALSE(check(valid_ssn, "666-45-6789"));
  EXPECT_FALSE(check(valid_ssn, "912-45-6789"));
  EXPECT_FALSE(check(valid_ssn, "123-00-6789"));
  EXPECT_FALSE(check(valid_ssn, "123-45-0000"));
  EXPECT_FALSE(check(valid_ssn, "123-45-6789", "978-"));
}

TEST(PiiValidators, Card) {
  EXPECT_TRUE(check(valid_card, "4111111111111111"));
  EXPECT_TRUE(check(valid_card, "4111 1111 1111 1111"));
  EXPECT_TRUE(check(valid_card, "5555-5555-5555-4444"));
  EXPECT_TRUE(check(valid_card, "3782 822463 10005"));  // Amex 4-6-5
  EXPECT_TRUE(check(valid_card, "6011111111111117"));
  EXPECT_FALSE(check(valid_card, "4111111111111112"));     // Luhn
  EXPECT_FALSE(check(valid_card, "4111 1111-1111 1111"));  // mixed separators
  EXPECT_FALSE(check(valid_card, "1234567812345670"));     // Luhn-valid, no issuer
  EXPECT_FALSE(check(valid_card, "378282246310005", "", "-1"));
}

TEST(PiiValidators, Ipv4) {
  EXPECT_TRUE(check(valid_ipv4, "192.168.1.1"));
  EXPECT_TRUE(check(valid_ipv4, "0.0.0.0"));
  EXPECT_TRUE(check(valid_ipv4, "255.255.255.255", "from "));
  EXPECT_FALSE(check(valid_ipv4, "256.1.1.1"));
  EXPECT_FALSE(check(valid_ipv4, "01.2.3.4"));
  EXPECT_FALSE(check(valid_ipv4, "1.2.3.4", "", ".5"));
  EXPECT_FALSE(check(valid_ipv4, "2.3.4.5", "1."));
  EXPECT_FALSE(check(valid_ipv4, "10.0.19045.2364"));
  EXPECT_FALSE(check(valid_ipv4, "10.0.1.2", "version "));
  EXPECT_FALSE(check(valid_ipv4, "10.0.1.2", "Build: "));
}

TEST(PiiValidators, Ipv6) {
  EXPECT_TRUE(check(valid_ipv6, "2001:0db8:85a3:0000:0000:8a2e:0370:7334"));
  EXPECT_TRUE(check(valid_ipv6, "2001:db8::8a2e:370:7334"));
  EXPECT_TRUE(check(valid_ipv6, "fe80::1"));
  EXPECT_TRUE(check(valid_ipv6, "::ffff:192.0.2.128"));
  EXPECT_FALSE(check(valid_ipv6, "::"));
  EXPECT_FALSE(check(valid_ipv6, "::1"));
  EXPECT_FALSE(check(valid_ipv6, "12:30:45"));
  EXPECT_FALSE(check(valid_ipv6, "00:1A:2B:3C:4D:5E"));
  EXPECT_FALSE(check(valid_ipv6, "d::", "st", "string"));
  EXPECT_FALSE(check(valid_ipv6, "1:2:3:4:5:6:7:8:9"));  // too many groups
}

}  // namespace
}  // namespace harness::pii
