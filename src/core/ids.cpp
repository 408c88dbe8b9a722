#include "harness/core/ids.hpp"

#include <array>
#include <random>

namespace harness::core {

std::string make_id(std::string_view prefix) {
  thread_local std::mt19937_64 generator{[] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }()};
  static constexpr char digits[] = "0123456789abcdef";
  // Sized once and filled in place: every request makes one (its request id).
  std::string id(prefix.size() + 24, '\0');
  char* out = id.data() + prefix.size();
  prefix.copy(id.data(), prefix.size());
  std::uint64_t bits = generator();
  std::uint32_t more = static_cast<std::uint32_t>(generator());
  for (int i = 0; i < 16; ++i, bits >>= 4) *out++ = digits[bits & 0xF];
  for (int i = 0; i < 8; ++i, more >>= 4) *out++ = digits[more & 0xF];
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
