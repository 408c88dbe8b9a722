// The engine's choices: RE2's Latin-1 (bytes) mode when it changes nothing,
// UTF-8 otherwise; a start_finder for built-ins, which must find exactly what
// the unanchored scan finds.
#include <gtest/gtest.h>

#include <tuple>

#include "builtin_detectors.hpp"
#include "harness/pii/pii_censor.hpp"
#include "pii/edge_texts.hpp"
#include "pii/pii_corpus.hpp"
#include "pii_engine.hpp"

namespace harness::pii::detail {
namespace {

TEST(PiiEngine, BytesModeOnlyForPatternsItCannotChange) {
  for (const auto& d : builtin_detectors()) EXPECT_TRUE(byte_safe_pattern(d.pattern)) << d.name;
  EXPECT_TRUE(byte_safe_pattern(token_shaped_pattern));
  EXPECT_TRUE(byte_safe_pattern(R"(\bID-\d{6}\b)"));
  EXPECT_TRUE(byte_safe_pattern("M\xc3\xbcller-\\d+"));  // a UTF-8 literal matches as a whole sequence
  EXPECT_TRUE(byte_safe_pattern(R"(v\d+\.\d+)"));        // an escaped dot is a literal
  EXPECT_TRUE(byte_safe_pattern(R"([ .\-]\d+)"));        // so is a dot in a class
  for (const char* unsafe : {"a.b", "[^,]+", R"(\D+)", R"(\S+)", R"(\W)", R"(\p{L}+)", R"(\PL)", R"(\C)", R"([.\D])",
                             "[[:^digit:]]", "[.].x."}) {
    EXPECT_FALSE(byte_safe_pattern(unsafe)) << unsafe;
  }
}

TEST(PiiEngine, TheBuiltInsCompileInBytesModeAndAnUnsafeCustomPatternTurnsItOff) {
  std::vector<kind_source> builtins;
  for (const auto& d : builtin_detectors())
    builtins.push_back({std::string(d.name), std::string(d.pattern), d.validate});
  auto fast = pii_engine::compile(builtins);
  ASSERT_TRUE(fast);
  EXPECT_TRUE(fast->byte_mode());
  auto with_custom = builtins;
  with_custom.push_back({"name", R"(\bN: [^,]+)", nullptr});
  auto careful = pii_engine::compile(with_custom);
  ASSERT_TRUE(careful);
  EXPECT_FALSE(careful->byte_mode());
}

TEST(PiiEngine, NonAsciiTextAroundValuesIsUntouchedInBothModes) {
  auto builtins_only = pii_censor_builder().build();
  ASSERT_TRUE(builtins_only);
  pii_vault vault;
  const std::string in =
      "Gr\xc3\xbc\xc3\x9f"
      "e an j\xc3\xb6rg@example.com \xe2\x80\x94 Tel. +49 30 1234567, IP 10.0.0.1 \xe2\x9c\x93";
  auto out = builtins_only->tokenize(in, vault);
  EXPECT_EQ(out,
            "Gr\xc3\xbc\xc3\x9f"
            "e an j\xc3\xb6[EMAIL_1] \xe2\x80\x94 Tel. [PHONE_1], IP [IPV4_1] \xe2\x9c\x93");
  EXPECT_EQ(detokenize(out, vault), in);

  // A custom pattern that could split a character keeps the engine in UTF-8
  // mode, where [^,] takes whole characters.
  pii_censor_builder b;
  ASSERT_TRUE(b.add_pattern("name", R"(\bN: [^,]+)"));
  auto with_custom = b.build();
  ASSERT_TRUE(with_custom);
  pii_vault other;
  const std::string named = "N: J\xc3\xb6rg M\xc3\xbcller, a@b.com";
  auto censored = with_custom->tokenize(named, other);
  EXPECT_EQ(censored, "[NAME_1], [EMAIL_1]");
  EXPECT_EQ(detokenize(censored, other), named);
}

using found = std::vector<std::tuple<std::size_t, std::size_t, std::size_t>>;  // kind, start, end

found scan_all(const pii_engine& engine, std::string_view text) {
  found out;
  engine.scan(text, [&](std::size_t kind, std::size_t start, std::size_t end) { out.emplace_back(kind, start, end); });
  return out;
}

std::vector<kind_source> builtins_except(std::string_view off) {
  std::vector<kind_source> out;
  for (const auto& d : builtin_detectors())
    if (d.name != off) out.push_back({std::string(d.name), std::string(d.pattern), d.validate});
  return out;
}

TEST(PiiEngine, TheStartFinderFindsWhatTheUnanchoredScanFinds) {
  auto texts = test::edge_texts();
  texts.push_back(corpus::mixed_text(1 << 20, 42));
  for (std::string_view off : {"", "email", "card", "ssn", "phone", "ipv6", "ipv4"}) {
    auto fast = pii_engine::compile(builtins_except(off));
    auto full = pii_engine::compile(builtins_except(off), /*find_starts=*/false);
    ASSERT_TRUE(fast && full);
    EXPECT_TRUE(fast->finds_starts());
    EXPECT_FALSE(full->finds_starts());
    std::size_t values = 0;
    for (const auto& text : texts) {
      const auto want = scan_all(*full, text);
      EXPECT_EQ(scan_all(*fast, text), want) << "without '" << off << "' in '" << text.substr(0, 200) << "'";
      values += want.size();
    }
    EXPECT_GT(values, 4000u) << off;  // the texts do hold values
  }
}

TEST(PiiEngine, CustomPatternsKeepTheUnanchoredScan) {
  auto kinds = builtins_except("");
  EXPECT_TRUE(pii_engine::compile(kinds)->finds_starts());
  kinds.push_back({"custom_id", R"(\bID-\d{6}\b)", nullptr});
  EXPECT_FALSE(pii_engine::compile(kinds)->finds_starts());
}

}  // namespace
}  // namespace harness::pii::detail
