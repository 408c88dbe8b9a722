#include "pii/edge_texts.hpp"

#include <iterator>
#include <random>
#include <string_view>

#include "pii/pii_corpus.hpp"

namespace harness::pii::test {
namespace {

// Whole values, their near misses and their pieces.
constexpr std::string_view fragments[] = {
    // phone
    "415-555-2671", "(415) 555-2671", "(415)555-2671", "+1 415 555 2671", "+14155552671", "1-415-555-2671",
    "1 (415) 555-2671", "1(415)555-2671", "1415-555-2671", "14155552671", "415.555.2671", "000-555-2671",
    "+44 20 7946 0958", "0044 20 7946 0958", "00441234567890", "+49 (30) 1234567", " x204", " ext. 12", "ext",
    " extension 123456", "+", "+0", "(", ")", "00", "1 ", "1-", "555", "2671",
    // ssn
    "123-45-6789", "123 45 6789", "123-45 6789", "078-05-1120", "666-12-3456", "001-23-4567", "1123-45-6789",
    // card
    "4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111", "378282246310005", "3782 822463 10005",
    "6011 0009 9013 9424 123", "4111 1111-1111 1111", "0012 3456 7890 1234", "3633 008100 1713", "1234",
    // ipv4
    "1.2.3.4", "192.168.0.17", "001.2.3.4", "256.1.1.1", "1.2.3.4.5", "10.0.0", "v1.2.3.4", "1234.1.1.1", ".",
    // ipv6
    "2001:db8::1", "::ffff:192.0.2.128", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:1.2.3.4", "a:b:c:d:e:f:0:1", "fe80::1",
    "::", ":::", "1::", "12345::1", "abcde:1::2", "1:2:3:4:5:6:7::1:2:3:4:5:6:7:1.2.3.4", "ext::1", "x::1", "14:30:00",
    "00:1A:2B:3C:4D:5E", "std::string", "2A00:1450:4001:81C::200E", ":",
    // email
    "john.smith@example.com", "a@b.co", ".a@b.com", "a..b@c.com", "@x.com", "a@.com", "user@localhost", "a@b@c.com",
    "a-b_c%d+e@x-y.co.uk", "JOHN@EXAMPLE.COM", "12345678901@x.com", "415-555-2671@x.com", "@", "x.",
    "0123456789012345678901234567890123456789012345678901234567890123@x.com",
    "01234567890123456789012345678901234567890123456789012345678901234@x.com",
    // token
    "[EMAIL_1]", "[A_1]", "[a_1]", "[EMAIL_01]", "[[PHONE_12]]", "[", "]", "_",
    // surroundings
    " ", " ", " ", "\n", "-", "--", ",", ";", "=", "/", "a", "Z", "v", "0", "1", "7", "9", "12", "x", "e", "f",
    "\xc3\xa9", "\xe2\x80\x94", "\xff", "\t", "version ", "build: ", "#", "$", "ORD-", "2023-10-12T14:30:00Z", "IP ",
    "tel:"};

// Fixed texts for edges a random mix may not hit.
constexpr std::string_view fixed[] = {
    "",
    "415-555-2671",
    "a@b.co",
    "::1",
    "1.2.3.4",
    "[EMAIL_1]",
    "415-555-2671415-555-2671",
    "1.2.3.4 5.6.7.8\n9.10.11.12",
    "a@b.coc@d.org",
    "123-45-6789123-45-6789",
    "415-555-\n2671 and 1.2.\n3.4",
    "\xc3\xa9"
    "415-555-2671\xc3\xa9 j\xc3\xb6rg@example.com \xff"
    "1.2.3.4",
    "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20",
    "00 00 00 00 0 0 0 00000000000000000000 1-1-1-1 ((((415) 555-2671",
};

}  // namespace

std::vector<std::string> edge_texts() {
  std::vector<std::string> out(std::begin(fixed), std::end(fixed));
  // Domains at and past the longest the e-mail pattern takes (250 after the first character).
  for (std::size_t len : {240, 249, 250, 251, 252}) out.push_back("mail u@" + std::string(len, 'a') + ".io now");
  for (const auto& s : corpus::generate(400, 99)) out.push_back(s.text);
  std::mt19937_64 gen(2024);  // its output sequence is fixed by the standard
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    for (auto n = 1 + gen() % 10; n > 0; --n) text += fragments[gen() % std::size(fragments)];
    out.push_back(std::move(text));
  }
  return out;
}

}  // namespace harness::pii::test
