#include <gtest/gtest.h>

#include "harness/core/base64.hpp"

namespace harness::core {
namespace {

TEST(Base64, RoundTripsEveryLengthAndByte) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (std::size_t n = 0; n <= all.size(); n += 7) {
    auto text = base64_encode(all.substr(0, n));
    EXPECT_EQ(base64_decode(text), all.substr(0, n));
  }
}

TEST(Base64, KnownVectors) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
}

TEST(Base64, RejectsMalformedInput) {
  EXPECT_FALSE(base64_decode("Zg="));
  EXPECT_FALSE(base64_decode("Z=g="));
  EXPECT_FALSE(base64_decode("Zm9v\n"));
  EXPECT_FALSE(base64_decode("Zm9*"));
  EXPECT_FALSE(base64_decode("Zg==Zg=="));
}

}  // namespace
}  // namespace harness::core
