#include "transfer_coding.hpp"

#include <gtest/gtest.h>

namespace harness::http {
namespace {

using lines = std::vector<std::string_view>;

// The refusal's status and message; a test failure when the framing passed.
std::pair<unsigned, std::string> refusal(const lines& values, unsigned version = 11) {
  auto refused = check_transfer_encoding(values, version);
  EXPECT_TRUE(refused) << "accepted: " << (values.empty() ? "" : values.front());
  if (!refused) return {0, {}};
  auto error = nlohmann::json::parse(refused->body).at("error");
  return {refused->status, error["code"].get<std::string>() + ": " + error["message"].get<std::string>()};
}

TEST(TransferCoding, NoneOrChunkedAloneIsFine) {
  EXPECT_FALSE(check_transfer_encoding({}, 11));
  EXPECT_FALSE(check_transfer_encoding({"chunked"}, 11));
  EXPECT_FALSE(check_transfer_encoding({"Chunked"}, 11));
  EXPECT_FALSE(check_transfer_encoding({" , chunked ,"}, 11));  // empty list elements do not count
}

TEST(TransferCoding, AnotherCodingBeforeChunkedIs501NamingIt) {
  auto [status, text] = refusal({"gzip, chunked"});
  EXPECT_EQ(status, 501u);
  EXPECT_EQ(text.rfind("not_implemented: the transfer coding 'gzip' is not implemented", 0), 0u) << text;
  // A second line continues the list.
  auto [split_status, split_text] = refusal({"deflate", "chunked"});
  EXPECT_EQ(split_status, 501u);
  EXPECT_NE(split_text.find("'deflate'"), std::string::npos) << split_text;
}

TEST(TransferCoding, ChunkedNotLastOrMissingIs400) {
  for (auto value : {"chunked, gzip", "gzip", "", "identity"}) {
    auto [status, text] = refusal({value});
    EXPECT_EQ(status, 400u) << value;
    EXPECT_NE(text.find("bad_request: Transfer-Encoding is not valid: chunked must be the last"), std::string::npos)
        << text;
  }
}

TEST(TransferCoding, ChunkedTwiceIs400) {
  EXPECT_NE(refusal({"chunked, chunked"}).second.find("chunked is applied more than once"), std::string::npos);
  EXPECT_NE(refusal({"chunked", "chunked"}).second.find("more than once"), std::string::npos);
}

TEST(TransferCoding, ParametersOnChunkedOrBadTokensAre400) {
  EXPECT_NE(refusal({"chunked;ext=1"}).second.find("chunked takes no parameters"), std::string::npos);
  auto [status, text] = refusal({"gz\"ip, chunked"});
  EXPECT_EQ(status, 400u);
  EXPECT_NE(text.find("'gz\"ip' is not a transfer coding"), std::string::npos) << text;
}

TEST(TransferCoding, Http10HasNoTransferCodings) {
  auto [status, text] = refusal({"chunked"}, 10);
  EXPECT_EQ(status, 400u);
  EXPECT_NE(text.find("HTTP/1.0"), std::string::npos);
}

}  // namespace
}  // namespace harness::http
