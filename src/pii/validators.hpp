// The validators that turn a regex candidate into a detection. Each takes the
// whole text and the candidate's byte span, so it can look at the context
// (a dotted number around an IPv4 candidate, a dash-joined digit run around an
// SSN) that RE2, having no look-behind, cannot. Pure functions, no allocation.
#pragma once

#include <cstddef>
#include <string_view>

namespace harness::pii {

// Signature shared by every validator.
using validator_fn = bool (*)(std::string_view text, std::size_t start, std::size_t end);

// The Luhn checksum over the digits of `digits` (other characters skipped).
bool luhn_valid(std::string_view digits);

// Local part and domain rules: no leading, trailing or doubled dots, labels of
// 1-63 characters not starting or ending with '-', an alphabetic TLD.
bool valid_email(std::string_view text, std::size_t start, std::size_t end);

// E.164 / international ("+" or "00" and 8-15 digits; +1 must be a NANP
// number) or North-American (NANP area and exchange start with 2-9), with an
// optional extension; not glued to a longer digit run.
bool valid_phone(std::string_view text, std::size_t start, std::size_t end);

// AAA-GG-SSSS: area not 000, 666 or 9xx; group not 00; serial not 0000.
bool valid_ssn(std::string_view text, std::size_t start, std::size_t end);

// 13-19 digits, one kind of separator, a known issuer prefix and length, Luhn.
bool valid_card(std::string_view text, std::size_t start, std::size_t end);

// Four decimal octets 0-255 without leading zeros, not part of a longer dotted
// number and not right after a word such as "version" or "v".
bool valid_ipv4(std::string_view text, std::size_t start, std::size_t end);

// A real IPv6 address (full, compressed or IPv4-mapped) with at least four hex
// digits, not glued to a longer word or colon run.
bool valid_ipv6(std::string_view text, std::size_t start, std::size_t end);

}  // namespace harness::pii
