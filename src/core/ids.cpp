#include "harness/core/ids.hpp"

#include <array>
#include <cstring>
#include <random>

namespace harness::core {
namespace {

// The two hex digits of each byte value, low nibble first.
constexpr std::array<std::array<char, 2>, 256> hex_pairs = [] {
  constexpr char digits[] = "0123456789abcdef";
  std::array<std::array<char, 2>, 256> pairs{};
  for (std::size_t b = 0; b < pairs.size(); ++b) pairs[b] = {digits[b & 0xF], digits[b >> 4]};
  return pairs;
}();

}  // namespace

std::string make_id(std::string_view prefix) {
  thread_local std::mt19937_64 generator{[] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }()};
  // Sized once and filled in place, a byte (two digits, low nibble first)
  // at a time: every request makes one, its request id.
  std::string id(prefix.size() + 24, '\0');
  char* out = id.data() + prefix.size();
  prefix.copy(id.data(), prefix.size());
  std::uint64_t bits = generator();
  std::uint32_t more = static_cast<std::uint32_t>(generator());
  for (int i = 0; i < 8; ++i, bits >>= 8, out += 2) std::memcpy(out, hex_pairs[bits & 0xFF].data(), 2);
  for (int i = 0; i < 4; ++i, more >>= 8, out += 2) std::memcpy(out, hex_pairs[more & 0xFF].data(), 2);
  return id;
}

bool is_safe_id(std::string_view id, std::size_t max_length) {
  if (id.empty() || id.size() > max_length) return false;
  for (char c : id) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace harness::core
