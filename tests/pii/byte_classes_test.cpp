// The SSE2 classifier against the byte-at-a-time one: same bits for every
// byte value, at every offset, and past the end of the text.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "byte_classes.hpp"

namespace harness::pii::detail {
namespace {

void expect_same(std::string_view text, std::size_t base) {
  const byte_classes fast = classify_block(text, base), slow = classify_block_bytewise(text, base);
  EXPECT_EQ(fast.digit, slow.digit) << base;
  EXPECT_EQ(fast.word, slow.word) << base;
  EXPECT_EQ(fast.dot, slow.dot) << base;
  EXPECT_EQ(fast.space_or_dash, slow.space_or_dash) << base;
  EXPECT_EQ(fast.one, slow.one) << base;
  EXPECT_EQ(fast.zero, slow.zero) << base;
  EXPECT_EQ(fast.paren, slow.paren) << base;
  for (char c : {':', '@', '\0', '\xff'}) EXPECT_EQ(char_bits(text, base, c), char_bits_bytewise(text, base, c));
}

TEST(ByteClasses, EveryByteValueIsClassifiedAlike) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  for (std::size_t base = 0; base <= all.size(); base += 16) expect_same(all, base);
}

TEST(ByteClasses, RandomTextAtEveryOffsetAndPastTheEnd) {
  std::mt19937_64 gen(7);
  const std::string chars = "0123456789aZz_@.-( )\x80\xff:/`{[";
  for (int round = 0; round < 200; ++round) {
    std::string text;
    for (auto n = gen() % 150; n > 0; --n) text.push_back(chars[gen() % chars.size()]);
    for (std::size_t base = 0; base <= text.size() + 64; ++base) expect_same(text, base);
  }
}

TEST(ByteClasses, KnownBits) {
  const auto c = classify_block_bytewise("a1 -.(0_", 0);
  EXPECT_EQ(c.digit, 0b01000010u);
  EXPECT_EQ(c.word, 0b11000011u);
  EXPECT_EQ(c.space_or_dash, 0b00001100u);
  EXPECT_EQ(c.dot, 0b00010000u);
  EXPECT_EQ(c.paren, 0b00100000u);
  EXPECT_EQ(c.one, 0b00000010u);
  EXPECT_EQ(c.zero, 0b01000000u);
  EXPECT_EQ(char_bits_bytewise("a::b:", 0, ':'), 0b10110u);
}

}  // namespace
}  // namespace harness::pii::detail
