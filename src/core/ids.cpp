#include "harness/core/ids.hpp"

#include <sys/random.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "harness/core/errors.hpp"

namespace harness::core {
namespace {

// The two hex digits of each byte value, low nibble first.
constexpr std::array<std::array<char, 2>, 256> hex_pairs = [] {
  constexpr char digits[] = "0123456789abcdef";
  std::array<std::array<char, 2>, 256> pairs{};
  for (std::size_t b = 0; b < pairs.size(); ++b) pairs[b] = {digits[b & 0xF], digits[b >> 4]};
  return pairs;
}();

// The kernel's CSPRNG (getrandom), read 4 KiB at a time per thread: ids are
// seen by callers (every response carries its request id), and a seeded
// generator such as mt19937 gives its later outputs away to whoever collects
// a few hundred of them. One system call serves 341 ids.
class random_bytes {
 public:
  static constexpr std::size_t capacity = 4096;

  const unsigned char* take(std::size_t n) {
    if (used_ + n > pool_.size()) refill();
    const unsigned char* out = pool_.data() + used_;
    used_ += n;
    return out;
  }

 private:
  void refill() {
    std::size_t filled = 0;
    while (filled < pool_.size()) {
      ssize_t got = getrandom(pool_.data() + filled, pool_.size() - filled, 0);
      if (got > 0) {
        filled += static_cast<std::size_t>(got);
      } else if (errno != EINTR) {
        std::abort();  // no randomness at all: no id may be issued (cannot happen on Linux 3.17+)
      }
    }
    used_ = 0;
  }

  std::array<unsigned char, capacity> pool_{};
  std::size_t used_ = pool_.size();
};

// prefix + the hex of `bytes`: sized once and filled in place, a byte (two
// digits, low nibble first) at a time (every request makes one, its request id).
std::string hex_id(std::string_view prefix, const unsigned char* bytes, std::size_t count) {
  std::string id(prefix.size() + 2 * count, '\0');
  char* out = id.data() + prefix.size();
  prefix.copy(id.data(), prefix.size());
  for (std::size_t i = 0; i < count; ++i, out += 2) std::memcpy(out, hex_pairs[bytes[i]].data(), 2);
  return id;
}

}  // namespace

std::string make_id(std::string_view prefix, std::size_t bytes) {
  thread_local random_bytes source;
  if (bytes > random_bytes::capacity) bytes = random_bytes::capacity;
  return hex_id(prefix, source.take(bytes), bytes);
}

result<std::string> make_secret_id(std::string_view prefix, std::size_t bytes) {
  std::vector<unsigned char> random(bytes);
  std::size_t got = 0;
  while (got < random.size()) {
    ssize_t n = ::getrandom(random.data() + got, random.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return make_error(errc::internal_error, std::string("the kernel gave no random bytes: ") + std::strerror(errno),
                        "no id was made; check that getrandom works in this container");
    }
    got += static_cast<std::size_t>(n);
  }
  return hex_id(prefix, random.data(), random.size());
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
