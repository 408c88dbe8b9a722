#include "validators.hpp"

#include <arpa/inet.h>

#include <array>
#include <cstring>

#include "ascii.hpp"

namespace harness::pii {
namespace {

using detail::is_alnum;
using detail::is_alpha;
using detail::is_digit;
using detail::is_hex;

char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// True when the span is one piece of a longer number: a digit right next to it,
// or a separator ('-', '.', '/') that joins it to more digits ("978-123-45-6789",
// "1.2.3.4.5", "12/415-555-2671").
bool glued_to_number(std::string_view text, std::size_t start, std::size_t end) {
  auto joiner = [](char c) { return c == '-' || c == '.' || c == '/'; };
  if (start > 0) {
    char p = text[start - 1];
    if (is_digit(p)) return true;
    if (joiner(p) && start > 1 && is_digit(text[start - 2])) return true;
  }
  if (end < text.size()) {
    char n = text[end];
    if (is_digit(n)) return true;
    if (joiner(n) && end + 1 < text.size() && is_digit(text[end + 1])) return true;
  }
  return false;
}

// Copies the digits of `s` into `out` (at most out.size()); returns how many
// there were in total (which may exceed out.size()).
template <std::size_t N>
std::size_t collect_digits(std::string_view s, std::array<char, N>& out) {
  std::size_t n = 0;
  for (char c : s) {
    if (is_digit(c)) {
      if (n < N) out[n] = c;
      ++n;
    }
  }
  return n;
}

int num(const char* p, std::size_t len) {
  int v = 0;
  for (std::size_t i = 0; i < len; ++i) v = v * 10 + (p[i] - '0');
  return v;
}

bool nanp_valid(const char* ten) {
  // NPA and NXX both start with 2-9; N11 area codes are service codes.
  if (ten[0] < '2' || ten[3] < '2') return false;
  if (ten[1] == '1' && ten[2] == '1') return false;
  return true;
}

}  // namespace

bool luhn_valid(std::string_view digits) {
  int sum = 0;
  bool dbl = false;
  int count = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (!is_digit(*it)) continue;
    int d = *it - '0';
    if (dbl) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    dbl = !dbl;
    ++count;
  }
  return count > 0 && sum % 10 == 0;
}

bool valid_email(std::string_view text, std::size_t start, std::size_t end) {
  std::string_view s = text.substr(start, end - start);
  auto at = s.find('@');
  if (at == std::string_view::npos || at == 0 || at > 64) return false;
  std::string_view local = s.substr(0, at), domain = s.substr(at + 1);
  if (local.back() == '.' || local.find("..") != std::string_view::npos) return false;
  if (domain.size() > 253) return false;
  std::size_t label_start = 0;
  for (std::size_t i = 0; i <= domain.size(); ++i) {
    if (i == domain.size() || domain[i] == '.') {
      std::size_t len = i - label_start;
      if (len == 0 || len > 63) return false;
      if (domain[label_start] == '-' || domain[i - 1] == '-') return false;
      label_start = i + 1;
    }
  }
  auto tld = domain.substr(domain.rfind('.') + 1);
  for (char c : tld)
    if (!is_alpha(c)) return false;
  // "user@host.com" inside "user@host.com@evil" or "a@b.c-d" is not a clean address.
  if (end < text.size() && (text[end] == '@' || text[end] == '-' || text[end] == '_')) return false;
  return true;
}

bool valid_phone(std::string_view text, std::size_t start, std::size_t end) {
  std::string_view s = text.substr(start, end - start);
  // Split off the extension.
  std::size_t ext = std::string_view::npos;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == 'x' || s[i] == 'e') {
      ext = i;
      break;
    }
  }
  std::string_view main = s.substr(0, ext);
  while (!main.empty() && main.back() == ' ') main.remove_suffix(1);
  if (main.empty() || !is_digit(main.back())) return false;
  if (glued_to_number(text, start, start + main.size())) return false;
  if (start > 0 && is_alpha(text[start - 1])) return false;

  std::array<char, 20> d{};
  std::size_t n = collect_digits(main, d);
  bool international = main[0] == '+' || (main.size() > 1 && main[0] == '0' && main[1] == '0');
  if (international) {
    const char* p = d.data();
    if (main[0] == '0') {  // "00" international prefix: weaker evidence than "+", so ask for more
      if (start > 1 && text[start - 1] == ' ' && is_digit(text[start - 2])) return false;  // "3633 008100 1713"
      p += 2;
      n -= 2;
      if (n < 10) return false;
    }
    if (n < 8 || n > 15 || p[0] == '0') return false;
    if (p[0] == '1') return n == 11 && nanp_valid(p + 1);
    // Separators must sit between digit groups of a real number, not make up a date-like run.
    return true;
  }
  if (n == 11) {
    if (d[0] != '1') return false;
    return nanp_valid(d.data() + 1);
  }
  return n == 10 && nanp_valid(d.data());
}

bool valid_ssn(std::string_view text, std::size_t start, std::size_t end) {
  if (glued_to_number(text, start, end)) return false;
  std::array<char, 9> d{};
  if (collect_digits(text.substr(start, end - start), d) != 9) return false;
  int area = num(d.data(), 3), group = num(d.data() + 3, 2), serial = num(d.data() + 5, 4);
  if (area == 0 || area == 666 || area >= 900) return false;
  return group != 0 && serial != 0;
}

bool valid_card(std::string_view text, std::size_t start, std::size_t end) {
  std::string_view s = text.substr(start, end - start);
  if (glued_to_number(text, start, end)) return false;
  char sep = 0;
  for (char c : s) {
    if (is_digit(c)) continue;
    if (sep == 0) sep = c;
    if (c != sep) return false;  // "4111 1111-1111 1111" mixes separators
  }
  std::array<char, 19> d{};
  std::size_t n = collect_digits(s, d);
  if (n < 13 || n > 19) return false;
  int p2 = num(d.data(), 2), p3 = num(d.data(), 3), p4 = num(d.data(), 4), p6 = num(d.data(), 6);
  bool issuer = false;
  if (d[0] == '4') {
    issuer = n == 13 || n == 16 || n == 19;  // Visa
  } else if ((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) {
    issuer = n == 16;  // Mastercard
  } else if (p2 == 34 || p2 == 37) {
    issuer = n == 15;  // American Express
  } else if (p4 == 6011 || p2 == 65 || (p3 >= 644 && p3 <= 649) || (p6 >= 622126 && p6 <= 622925)) {
    issuer = n >= 16;  // Discover
  } else if (p2 == 62) {
    issuer = n >= 16;  // UnionPay
  } else if (p4 >= 3528 && p4 <= 3589) {
    issuer = n >= 16;  // JCB
  } else if ((p3 >= 300 && p3 <= 305) || p2 == 36 || p2 == 38 || p2 == 39) {
    issuer = n >= 14;  // Diners Club
  } else if (p4 >= 2200 && p4 <= 2204) {
    issuer = n == 16;  // Mir
  } else if (p2 == 50 || (p2 >= 56 && p2 <= 58) || p4 == 6304 || p4 == 6759) {
    issuer = true;  // Maestro, 12-19 digits
  }
  return issuer && luhn_valid(s);
}

bool valid_ipv4(std::string_view text, std::size_t start, std::size_t end) {
  std::string_view s = text.substr(start, end - start);
  if (glued_to_number(text, start, end)) return false;
  // Each octet: 0-255, no leading zero.
  std::size_t i = 0;
  for (int octet = 0; octet < 4; ++octet) {
    std::size_t b = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    std::size_t len = i - b;
    if (len == 0 || len > 3 || (len > 1 && s[b] == '0') || num(s.data() + b, len) > 255) return false;
    ++i;  // the dot
  }
  // "version 10.0.0.1", "v 1.2.3.4", "build: 1.2.3.4": a version string, not an address.
  std::size_t p = start;
  while (p > 0 && (text[p - 1] == ' ' || text[p - 1] == ':' || text[p - 1] == '=')) --p;
  std::size_t w = p;
  while (w > 0 && is_alpha(text[w - 1])) --w;
  std::string_view word = text.substr(w, p - w);
  if (word.size() <= 8) {
    std::array<char, 8> lw{};
    for (std::size_t k = 0; k < word.size(); ++k) lw[k] = lower(word[k]);
    std::string_view lword(lw.data(), word.size());
    for (std::string_view v : {"v", "ver", "version", "release", "build", "rev", "revision"})
      if (lword == v) return false;
  }
  return true;
}

bool valid_ipv6(std::string_view text, std::size_t start, std::size_t end) {
  std::size_t len = end - start;
  if (len < 3 || len > INET6_ADDRSTRLEN - 1) return false;
  if (start > 0) {
    char p = text[start - 1];
    if (is_alnum(p) || p == '_' || p == ':' || p == '.') return false;
  }
  if (end < text.size()) {
    char n = text[end];
    if (is_alnum(n) || n == '_' || n == ':') return false;
    if (n == '.' && end + 1 < text.size() && is_digit(text[end + 1])) return false;
  }
  int hex_digits = 0;
  for (std::size_t i = start; i < end; ++i) hex_digits += is_hex(text[i]) ? 1 : 0;
  if (hex_digits < 4) return false;  // "::", "::1", "a::b" (C++ scopes) are not worth a token
  char buf[INET6_ADDRSTRLEN];
  std::memcpy(buf, text.data() + start, len);
  buf[len] = '\0';
  in6_addr addr;
  return inet_pton(AF_INET6, buf, &addr) == 1;
}

}  // namespace harness::pii
