// Shared by the JSON fuzz targets: the first byte of an input chooses where
// the rest is cut into pieces, as a socket or pipe would deliver it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace harness::fuzz {

// The input without its first byte, in pieces of 1 to (first byte % 64) + 1
// bytes (one piece when the input has no first byte to spare).
inline std::vector<std::string_view> pieces(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return {std::string_view(reinterpret_cast<const char*>(data), size)};
  const std::size_t step = data[0] % 64 + 1;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<std::string_view> out;
  for (std::size_t at = 0; at < rest.size(); at += step) out.push_back(rest.substr(at, step));
  return out;
}

// Stops the run the way libFuzzer reports a finding.
inline void require(bool condition) {
  if (!condition) std::abort();
}

}  // namespace harness::fuzz
