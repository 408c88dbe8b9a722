#include "builtin_detectors.hpp"

#include <array>

namespace harness::pii::detail {
namespace {

// Patterns find candidates; the validators decide. Repetitions are bounded so
// that a candidate that fails validation costs a bounded rescan.
// start_finder.cpp knows where each of these can start; change it with them
// (start_finder_test.cpp checks the two against each other).
constexpr std::string_view email_pattern =
    R"([A-Za-z0-9_%+\-][A-Za-z0-9._%+\-]{0,63}@[A-Za-z0-9][A-Za-z0-9.\-]{0,250}\.[A-Za-z]{2,24}\b)";

// International ("+" or "00", country code, groups) or North-American, then an optional extension.
constexpr std::string_view phone_pattern =
    R"((?:(?:\+|\b00)[1-9]\d{0,2}[ .\-]?(?:\(\d{1,4}\)[ .\-]?)?\d{1,4}(?:[ .\-]?\d{1,4}){1,5})"
    R"(|(?:(?:\+1|\b1)[ .\-]?)?(?:\(\d{3}\)[ .\-]?|\b\d{3}[ .\-])\d{3}[ .\-]\d{4}))"
    R"((?:[ ]?(?:x|ext\.?|extension)[ ]?\d{1,6})?\b)";

constexpr std::string_view ssn_pattern = R"(\b\d{3}-\d{2}-\d{4}\b|\b\d{3} \d{2} \d{4}\b)";

// 4-6-4/5 (Amex, Diners), 4-4-4-1..4 (+3) (the rest), or an unbroken run.
constexpr std::string_view card_pattern =
    R"(\b(?:\d{4}[ \-]?\d{6}[ \-]?\d{4,5}|\d{4}[ \-]?\d{4}[ \-]?\d{4}[ \-]?\d{1,4}(?:[ \-]?\d{3})?|\d{13,19})\b)";

constexpr std::string_view ipv4_pattern = R"(\b(?:\d{1,3}\.){3}\d{1,3}\b)";

// Eight groups, six groups and an IPv4 tail, or a "::" compressed form (with
// an optional IPv4 tail). Times such as 14:30:00 and MAC addresses never match.
#define HEX "[0-9A-Fa-f]{1,4}"
#define V4 R"(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})"
constexpr std::string_view ipv6_pattern = "(?:" HEX ":){7}" HEX "|(?:" HEX ":){6}" V4 "|(?:" HEX "(?::" HEX
                                          "){0,6})?::(?:" HEX "(?::" HEX "){0,6})?(?::" V4 ")?";
#undef HEX
#undef V4

constexpr std::array<builtin_detector, builtin_count> detectors = {{
    {"email", email_pattern, valid_email},
    {"card", card_pattern, valid_card},
    {"ssn", ssn_pattern, valid_ssn},
    {"phone", phone_pattern, valid_phone},
    {"ipv6", ipv6_pattern, valid_ipv6},
    {"ipv4", ipv4_pattern, valid_ipv4},
}};
static_assert(detectors[email_index].name == "email" && detectors[card_index].name == "card" &&
              detectors[ssn_index].name == "ssn" && detectors[phone_index].name == "phone" &&
              detectors[ipv6_index].name == "ipv6" && detectors[ipv4_index].name == "ipv4");

}  // namespace

std::span<const builtin_detector> builtin_detectors() {
  return detectors;
}

}  // namespace harness::pii::detail
