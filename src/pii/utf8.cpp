#include "utf8.hpp"

#include "harness/core/utf8.hpp"

namespace harness::pii::detail {

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = core::utf8_sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

}  // namespace harness::pii::detail
