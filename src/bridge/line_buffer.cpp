#include "harness/bridge/line_buffer.hpp"

namespace harness::bridge {

std::optional<line_buffer::item> line_buffer::next() {
  for (;;) {
    auto newline = data_.find('\n');
    if (discarding_) {
      if (newline == std::string::npos) {
        data_.clear();
        return std::nullopt;
      }
      data_.erase(0, newline + 1);
      discarding_ = false;
      continue;
    }
    if (newline == std::string::npos) {
      if (data_.size() > max_line_) {
        data_.clear();
        discarding_ = true;
        return item{kind::too_long, {}};
      }
      return std::nullopt;
    }
    if (newline > max_line_) {
      data_.erase(0, newline + 1);
      return item{kind::too_long, {}};
    }
    item out{kind::line, data_.substr(0, newline)};
    data_.erase(0, newline + 1);
    return out;
  }
}

}  // namespace harness::bridge
