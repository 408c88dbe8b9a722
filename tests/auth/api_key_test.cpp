#include <gtest/gtest.h>

#include <set>

#include "harness/auth/api_key.hpp"

namespace harness::auth {
namespace {

TEST(ApiKey, HasThePrefixLengthAndAlphabet) {
  auto key = generate_api_key();
  ASSERT_TRUE(key);
  EXPECT_EQ(key->size(), api_key_length);
  EXPECT_EQ(key->rfind("mh_", 0), 0u);
  EXPECT_TRUE(looks_like_api_key(*key));
  EXPECT_NE(*key, *generate_api_key());
}

TEST(ApiKey, ShapeCheckRejectsMalformedText) {
  std::string good = *generate_api_key();
  EXPECT_FALSE(looks_like_api_key(""));
  EXPECT_FALSE(looks_like_api_key(good.substr(1)));
  EXPECT_FALSE(looks_like_api_key(good + "A"));
  EXPECT_FALSE(looks_like_api_key("xx_" + good.substr(3)));
  std::string bad = good;
  bad[10] = '+';
  EXPECT_FALSE(looks_like_api_key(bad));
}

TEST(ApiKey, IdsAreShortAndDistinct) {
  std::set<std::string> ids;
  for (int i = 0; i < 100; ++i) ids.insert(*generate_key_id());
  EXPECT_EQ(ids.size(), 100u);
  EXPECT_EQ(ids.begin()->size(), 16u);
}

TEST(ApiKey, DigestIsSha256AndRoundTripsThroughHex) {
  // SHA-256("abc"), FIPS 180-2.
  EXPECT_EQ(to_hex(digest_of("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  auto d = digest_of("x");
  EXPECT_EQ(digest_from_hex(to_hex(d)), d);
  EXPECT_FALSE(digest_from_hex("abc"));
  EXPECT_FALSE(digest_from_hex(std::string(64, 'g')));
}

TEST(ApiKey, DigestsEqualComparesWholeDigests) {
  auto a = digest_of("a");
  auto b = a;
  EXPECT_TRUE(digests_equal(a, b));
  b[31] ^= 1;
  EXPECT_FALSE(digests_equal(a, b));
  b = a;
  b[0] ^= 0x80;
  EXPECT_FALSE(digests_equal(a, b));
}

TEST(ApiKey, BearerTokenOfAnAuthorizationHeader) {
  EXPECT_EQ(bearer_token("Bearer mh_abc"), "mh_abc");
  EXPECT_EQ(bearer_token("  bearer \t mh_abc  "), "mh_abc");
  EXPECT_EQ(bearer_token("BEARER x"), "x");
  EXPECT_FALSE(bearer_token("Basic dXNlcjpwYXNz"));
  EXPECT_FALSE(bearer_token("Bearer"));
  EXPECT_FALSE(bearer_token("Bearer   "));
  EXPECT_FALSE(bearer_token("Bearermh_abc"));
  EXPECT_FALSE(bearer_token(""));
}

}  // namespace
}  // namespace harness::auth
