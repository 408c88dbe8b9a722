// The start_finder's contract, checked against RE2 at every position: wherever
// an enabled built-in pattern matches (anchored there, reading the text around
// it as the engine does), the finder reports that position with that kind.
#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "builtin_detectors.hpp"
#include "pii/edge_texts.hpp"
#include "pii_engine.hpp"
#include "start_finder.hpp"

namespace harness::pii::detail {
namespace {

constexpr kind_set all_kinds = (token_bit << 1) - 1;

// Every position the finder reports, walked as the engine walks it.
std::map<std::size_t, kind_set> reported(std::string_view text, kind_set enabled) {
  std::map<std::size_t, kind_set> out;
  start_finder finder(text, enabled);
  for (auto c = finder.next(0); c.pos != start_finder::npos; c = finder.next(c.pos + 1)) out[c.pos] = c.kinds;
  return out;
}

// Each built-in pattern alone, by kind bit.
std::map<kind_set, std::unique_ptr<RE2>> patterns_by_bit() {
  std::map<kind_set, std::unique_ptr<RE2>> out;
  const auto options = pii_re2_options(/*bytes=*/true);
  out[token_bit] = std::make_unique<RE2>(token_shaped_pattern, options);
  for (std::size_t i = 0; i < builtin_count; ++i)
    out[kind_bit(i)] = std::make_unique<RE2>(builtin_detectors()[i].pattern, options);
  return out;
}

// Counts the (position, kind) pairs where RE2 matches, and fails on each the finder misses.
int check_every_position(const std::string& text, kind_set enabled,
                         const std::map<kind_set, std::unique_ptr<RE2>>& patterns) {
  const auto found = reported(text, enabled);
  for (const auto& [pos, kinds] : found) {
    EXPECT_NE(kinds, 0u);
    EXPECT_EQ(kinds & ~enabled, 0u) << "disabled kinds reported at " << pos << " of '" << text << "'";
  }
  const re2::StringPiece input(text);
  int matches = 0;
  for (std::size_t s = 0; s < text.size(); ++s) {
    for (const auto& [bit, re] : patterns) {
      re2::StringPiece m;
      if (!(enabled & bit) || !re->Match(input, s, text.size(), RE2::ANCHOR_START, &m, 1) || m.empty()) continue;
      ++matches;
      auto it = found.find(s);
      EXPECT_TRUE(it != found.end() && (it->second & bit))
          << "kind bit " << bit << " matches '" << m << "' at " << s << " of '" << text << "'";
    }
  }
  return matches;
}

TEST(StartFinder, ReportsEveryPositionWhereABuiltInMatches) {
  const auto patterns = patterns_by_bit();
  int matches = 0;
  for (const auto& text : test::edge_texts()) matches += check_every_position(text, all_kinds, patterns);
  EXPECT_GT(matches, 10000);  // the texts do exercise the patterns
}

TEST(StartFinder, WithSomeKindsOffReportsOnlyTheOthersAndAllOfThem) {
  const auto patterns = patterns_by_bit();
  const auto texts = test::edge_texts();
  for (kind_set enabled :
       {token_bit, kind_bit(email_index), kind_bit(card_index), kind_bit(ssn_index), kind_bit(phone_index),
        kind_bit(ipv6_index), kind_bit(ipv4_index), all_kinds & ~kind_bit(phone_index)}) {
    for (std::size_t i = 0; i < texts.size(); i += 7) check_every_position(texts[i], enabled, patterns);
  }
}

TEST(StartFinder, ValuesAcrossTheEdgesOf64ByteBlocks) {
  const auto patterns = patterns_by_bit();
  for (std::string_view value : {"4111 1111 1111 1111", "123-45-6789", "1 (415) 555-2671", "0044 20 7946 0958",
                                 "415.555.2671", "192.168.0.17", "2001:db8::1", "a.b@example.com", "[EMAIL_1]"}) {
    for (std::size_t offset = 0; offset < 140; ++offset) {
      std::string text(offset, 'x');
      if (offset > 0) text.back() = ' ';
      text += value;
      EXPECT_GT(check_every_position(text, all_kinds, patterns), 0) << text;
      EXPECT_GT(check_every_position(text + " tail", all_kinds, patterns), 0) << text;
    }
  }
}

TEST(StartFinder, SkipsTextWithoutCandidates) {
  const std::string prose = "the quarterly report shows 12.5% growth at 10:30 in room 204, version 2.1 (build 7)";
  EXPECT_TRUE(reported(prose, all_kinds).empty());
  EXPECT_TRUE(reported("at 14:30:00 the MAC 00:1A:2B:3C:4D:5E", kind_bit(ipv6_index)).empty());
  // "d::" is a compressed IPv6 address to RE2 (the validator refuses it), so it is reported.
  EXPECT_EQ(reported("std::string", kind_bit(ipv6_index)).begin()->first, 2u);
}

TEST(StartFinder, NamesOnlyTheKindsThatCanStartThere) {
  const auto at = [](std::string_view text, std::size_t pos) { return reported(text, all_kinds).at(pos); };
  EXPECT_EQ(at("call 415-555-2671", 5), kind_bit(phone_index));
  EXPECT_EQ(at("ssn 123-45-6789", 4), kind_bit(ssn_index));
  EXPECT_EQ(at("4111 1111 1111 1111", 0), kind_bit(card_index));
  EXPECT_EQ(at("ip 10.0.0.1", 3), kind_bit(ipv4_index));
  EXPECT_EQ(at("ip 001.2.3.4", 3), kind_bit(phone_index) | kind_bit(ipv4_index));  // "00" and dots
  EXPECT_EQ(at("to a.b@c.com", 3), kind_bit(email_index));
  EXPECT_EQ(at("[EMAIL_1]", 0), token_bit);
  EXPECT_EQ(at("host fe80::1", 5), kind_bit(ipv6_index));
}

TEST(StartFinder, AnyOrderOfQuestionsGetsTheSameAnswers) {
  const std::string text = "a 415-555-2671 b 1.2.3.4 c x@y.com d ::1";
  start_finder finder(text, all_kinds);
  const auto late = finder.next(20);
  const auto early = finder.next(0);
  EXPECT_EQ(early.pos, 2u);
  EXPECT_EQ(late.pos, finder.next(20).pos);
  EXPECT_EQ(finder.next(text.size()).pos, start_finder::npos);
}

}  // namespace
}  // namespace harness::pii::detail
