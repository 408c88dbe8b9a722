#include "pii/pii_corpus.hpp"

#include <array>
#include <cstdio>
#include <functional>
#include <string_view>

namespace harness::pii::corpus {
namespace {

// splitmix64: tiny, and identical on every platform (std distributions are not).
class rng {
 public:
  explicit rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  int range(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1)); }
  template <class T, std::size_t N>
  const T& pick(const std::array<T, N>& a) {
    return a[next() % N];
  }
  std::string digits(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s.push_back(static_cast<char>('0' + range(0, 9)));
    return s;
  }

 private:
  std::uint64_t state_;
};

std::string fmt_num(int v, int width) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%0*d", width, v);
  return buf;
}

constexpr std::array<std::string_view, 12> first_names = {"john", "maria", "wei",  "olga",  "ahmed", "sofia",
                                                          "liam", "yuki",  "noah", "amara", "lucas", "priya"};
constexpr std::array<std::string_view, 10> last_names = {"smith", "garcia", "chen",   "ivanova", "hassan",
                                                         "rossi", "brown",  "tanaka", "mueller", "okafor"};
constexpr std::array<std::string_view, 10> domains = {
    "example.com",   "mail.example.org", "corp.acme.io", "gmail.com",        "uni-berlin.de",
    "company.co.uk", "outlook.com",      "startup.ai",   "dept.gov.example", "x.net"};

std::string email(rng& r) {
  std::string f(r.pick(first_names)), l(r.pick(last_names)), d(r.pick(domains));
  switch (r.range(0, 5)) {
    case 0:
      return f + "." + l + "@" + d;
    case 1:
      return f + "_" + l + std::to_string(r.range(1, 99)) + "@" + d;
    case 2:
      return f + "+news@" + d;
    case 3:
      return f.substr(0, 1) + l + "@" + d;
    case 4: {
      std::string s = f + "." + l + "@" + d;
      for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return s;
    }
    default:
      return l + "-" + f + "%ops@" + d;
  }
}

std::string nanp(rng& r, char sep) {
  std::string area = std::to_string(r.range(2, 9)) + r.digits(1) + std::to_string(r.range(0, 9));
  if (area[1] == '1' && area[2] == '1') area[2] = '5';
  std::string exch = std::to_string(r.range(2, 9)) + r.digits(2);
  std::string line = r.digits(4);
  switch (sep) {
    case '(':
      return "(" + area + ") " + exch + "-" + line;
    case 'e':
      return "+1" + area + exch + line;
    default:
      return area + sep + exch + sep + line;
  }
}

std::string phone(rng& r) {
  static constexpr std::array<std::string_view, 10> intl = {
      "+44 20 7946 0958",  "+49 30 12345678", "+33 1 23 45 67 89", "+81 3-1234-5678", "+61 2 9876 5432",
      "0044 20 7946 0958", "+91 98765 43210", "+86 138 0013 8000", "+34 912 345 678", "+55 11 91234-5678"};
  switch (r.range(0, 9)) {
    case 0:
      return nanp(r, '(');
    case 1:
      return nanp(r, '-');
    case 2:
      return nanp(r, '.');
    case 3:
      return nanp(r, ' ');
    case 4:
      return "+1 " + nanp(r, ' ');
    case 5:
      return "+1-" + nanp(r, '-');
    case 6:
      return nanp(r, 'e');
    case 7:
      return nanp(r, '-') + (r.range(0, 1) ? " x" : " ext. ") + std::to_string(r.range(1, 9999));
    case 8:
      return "1-" + nanp(r, '-');
    default:
      return std::string(r.pick(intl));
  }
}

std::string ssn(rng& r) {
  int area = r.range(1, 899);
  if (area == 666) area = 667;
  std::string s = fmt_num(area, 3), g = fmt_num(r.range(1, 99), 2), n = fmt_num(r.range(1, 9999), 4);
  return r.range(0, 4) == 0 ? s + " " + g + " " + n : s + "-" + g + "-" + n;
}

// A card number of `len` digits starting with `prefix`, with a right (or, if `valid` is false, wrong) Luhn digit.
std::string card_digits(rng& r, std::string prefix, int len, bool valid) {
  std::string d = prefix + r.digits(len - 1 - static_cast<int>(prefix.size()));
  int sum = 0;
  for (int i = static_cast<int>(d.size()) - 1, k = 0; i >= 0; --i, ++k) {
    int v = d[static_cast<std::size_t>(i)] - '0';
    if (k % 2 == 0) v = v * 2 > 9 ? v * 2 - 9 : v * 2;
    sum += v;
  }
  int check = (10 - sum % 10) % 10;
  if (!valid) check = (check + r.range(1, 9)) % 10;
  return d + static_cast<char>('0' + check);
}

std::string group(const std::string& d, std::initializer_list<int> sizes, char sep) {
  std::string out;
  std::size_t pos = 0;
  for (int n : sizes) {
    if (!out.empty()) out.push_back(sep);
    out += d.substr(pos, static_cast<std::size_t>(n));
    pos += static_cast<std::size_t>(n);
  }
  return out;
}

std::string card(rng& r, bool valid = true) {
  static constexpr std::array<std::string_view, 8> prefixes16 = {"4", "51", "55", "2221", "2720", "6011", "3528", "65"};
  char sep = std::array<char, 3>{' ', '-', 0}[r.next() % 3];
  switch (r.range(0, 5)) {
    case 0: {  // American Express 4-6-5
      std::string d = card_digits(r, r.range(0, 1) ? "34" : "37", 15, valid);
      return sep ? group(d, {4, 6, 5}, sep) : d;
    }
    case 1: {  // Diners 4-6-4
      std::string d = card_digits(r, "36", 14, valid);
      return sep ? group(d, {4, 6, 4}, sep) : d;
    }
    default: {
      std::string d = card_digits(r, std::string(r.pick(prefixes16)), 16, valid);
      return sep ? group(d, {4, 4, 4, 4}, sep) : d;
    }
  }
}

std::string ipv4(rng& r) {
  switch (r.range(0, 2)) {
    case 0:
      return "10." + std::to_string(r.range(0, 255)) + "." + std::to_string(r.range(0, 255)) + "." +
             std::to_string(r.range(1, 254));
    case 1:
      return "192.168." + std::to_string(r.range(0, 255)) + "." + std::to_string(r.range(1, 254));
    default:
      return std::to_string(r.range(1, 223)) + "." + std::to_string(r.range(0, 255)) + "." +
             std::to_string(r.range(0, 255)) + "." + std::to_string(r.range(1, 254));
  }
}

std::string hex4(rng& r) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%x", r.range(1, 0xffff));
  return buf;
}

std::string ipv6(rng& r) {
  switch (r.range(0, 4)) {
    case 0: {
      std::string s = "2001:db8";
      for (int i = 0; i < 6; ++i) s += ":" + hex4(r);
      return s;
    }
    case 1:
      return "fe80::" + hex4(r) + ":" + hex4(r) + ":" + hex4(r) + ":" + hex4(r);
    case 2:
      return "2001:db8::" + hex4(r) + ":" + hex4(r);
    case 3:
      return "::ffff:192.0.2." + std::to_string(r.range(1, 254));
    default: {
      std::string s = "2A00:1450:4001:" + hex4(r) + "::" + hex4(r);
      for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return s;
    }
  }
}

std::string look_alike(rng& r) {
  switch (r.range(0, 21)) {
    case 0:
      return "ORD-" + std::to_string(r.range(2015, 2025)) + "-" + r.digits(6);
    case 1:
      return "#" + std::to_string(r.range(10000000, 99999999));
    case 2:
      return std::to_string(r.range(2015, 2025)) + "-" + fmt_num(r.range(1, 12), 2) + "-" + fmt_num(r.range(1, 28), 2) +
             "T" + fmt_num(r.range(0, 23), 2) + ":" + fmt_num(r.range(0, 59), 2) + ":" + fmt_num(r.range(0, 59), 2) +
             "Z";
    case 3:
      return "17" + r.digits(8);  // epoch seconds
    case 4:
      return "17" + r.digits(11);  // epoch milliseconds
    case 5:
      return "v" + std::to_string(r.range(0, 9)) + "." + std::to_string(r.range(0, 20)) + "." +
             std::to_string(r.range(0, 99)) + "." + std::to_string(r.range(0, 99));
    case 6:
      return "version " + std::to_string(r.range(1, 12)) + ".0." + std::to_string(r.range(0, 99)) + "." +
             std::to_string(r.range(0, 99));
    case 7:
      return "1.2." + std::to_string(r.range(0, 9)) + ".4.5";
    case 8:
      return "Chrome/" + std::to_string(r.range(100, 130)) + ".0." + std::to_string(r.range(1000, 6999)) + "." +
             std::to_string(r.range(10, 200));
    case 9:
      return hex4(r) + hex4(r) + "-e89b-12d3-a456-" + r.digits(12);  // UUID
    case 10:
      return "$" + std::to_string(r.range(1, 999)) + "," + r.digits(3) + "." + r.digits(2);
    case 11:
      return "978-3-16-" + r.digits(6) + "-" + r.digits(1);  // ISBN-13
    case 12:
      return card(r, false);  // Luhn fails
    case 13:
      return fmt_num(r.range(1, 12), 2) + "/" + fmt_num(r.range(1, 28), 2) + "/" + std::to_string(r.range(1990, 2030));
    case 14:
      return "0x7fff" + hex4(r) + hex4(r);
    case 15:
      return std::array<std::string, 3>{"000", "666", "9" + r.digits(2)}[r.next() % 3] + "-" +
             fmt_num(r.range(1, 99), 2) + "-" + fmt_num(r.range(1, 9999), 4);  // invalid SSN areas
    case 16:
      return fmt_num(r.range(1, 899), 3) + "-00-" + fmt_num(r.range(1, 9999), 4);
    case 17:
      return std::to_string(r.range(256, 999)) + "." + std::to_string(r.range(0, 255)) + ".1.1";
    case 18:
      return "00:1A:2B:" + fmt_num(r.range(10, 99), 2) + ":4D:5E";  // MAC address
    case 19:
      return fmt_num(r.range(0, 23), 2) + ":" + fmt_num(r.range(0, 59), 2) + ":" + fmt_num(r.range(0, 59), 2);
    case 20:
      return "user@localhost";
    default:
      return "sha " + hex4(r) + hex4(r) + hex4(r);
  }
}

constexpr std::array<std::string_view, 10> templates = {"Please contact {} for details.",
                                                        "2023-10-12 14:30:00 INFO request from {} handled in 12 ms",
                                                        "{\"customer\": \"{}\", \"status\": \"active\"}",
                                                        "Ticket 4521: caller left {} and asked for a refund of $45.00.",
                                                        "name=Jane Roe;value={};updated=2024-01-05",
                                                        "- {}",
                                                        "Forwarding: {} (priority 2)",
                                                        "<td>{}</td><td>ok</td>",
                                                        "row 17, field 3 = '{}' , checked",
                                                        "{}"};

constexpr std::array<std::string_view, 24> prose = {
    "the",  "quarterly", "report",  "shows",   "revenue",  "of", "12.5%",      "growth",
    "and",  "3",         "new",     "regions", "meeting",  "at", "10:30",      "in",
    "room", "204",       "version", "2.1",     "deployed", "on", "2024-03-01", "build"};

}  // namespace

double score::precision() const {
  auto d = true_positives + false_positives;
  return d == 0 ? 1.0 : static_cast<double>(true_positives) / static_cast<double>(d);
}
double score::recall() const {
  auto d = true_positives + false_negatives;
  return d == 0 ? 1.0 : static_cast<double>(true_positives) / static_cast<double>(d);
}

std::vector<sample> generate(std::size_t count, std::uint64_t seed) {
  rng r(seed);
  using gen = std::function<std::string(rng&)>;
  const std::array<std::pair<std::string_view, gen>, 6> kinds = {{{"email", email},
                                                                  {"phone", phone},
                                                                  {"ssn", ssn},
                                                                  {"card", [](rng& g) { return card(g); }},
                                                                  {"ipv4", ipv4},
                                                                  {"ipv6", ipv6}}};
  std::vector<sample> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    sample s;
    std::string_view tpl = r.pick(templates);
    auto slot = tpl.find("{}");
    std::string value;
    if (r.range(0, 2) == 0) {
      value = look_alike(r);
    } else {
      const auto& [kind, make] = kinds[r.next() % kinds.size()];
      value = make(r);
      s.labels.push_back(label{std::string(kind), slot, slot + value.size()});
    }
    s.text = std::string(tpl.substr(0, slot)) + value + std::string(tpl.substr(slot + 2));
    out.push_back(std::move(s));
  }
  return out;
}

std::string mixed_text(std::size_t bytes, std::uint64_t seed) {
  rng r(seed);
  auto samples = generate(4096, seed ^ 0x5eedULL);
  std::string text;
  text.reserve(bytes + 256);
  std::size_t next_sample = 0;
  while (text.size() < bytes) {
    if (r.range(0, 2) == 0) {
      text += samples[next_sample++ % samples.size()].text;
    } else {
      int words = r.range(8, 20);
      for (int w = 0; w < words; ++w) {
        if (w) text.push_back(' ');
        text += r.pick(prose);
      }
      text.push_back('.');
    }
    text.push_back('\n');
  }
  return text;
}

std::string markdown_table(const std::map<std::string, score>& scores) {
  std::string out =
      "| kind | true pos. | false pos. | false neg. | precision | recall |\n|---|---:|---:|---:|---:|---:|\n";
  char line[160];
  for (const auto& [kind, s] : scores) {
    std::snprintf(line, sizeof line, "| %s | %zu | %zu | %zu | %.4f | %.4f |\n", kind.c_str(), s.true_positives,
                  s.false_positives, s.false_negatives, s.precision(), s.recall());
    out += line;
  }
  return out;
}

}  // namespace harness::pii::corpus
