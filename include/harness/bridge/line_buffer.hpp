// Splits a byte stream into lines with a cap on line length, for frame
// channels over pipes or a container's demultiplexed stdout.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace harness::bridge {

class line_buffer {
 public:
  explicit line_buffer(std::size_t max_line) : max_line_(max_line) {}

  void append(std::string_view bytes) { data_.append(bytes); }

  enum class kind { line, too_long };
  struct item {
    kind what;
    std::string line;  // empty for too_long
  };
  // The next complete line (without '\n'), or a too_long marker once per
  // overlong line, whose bytes are dropped up to and including its newline.
  std::optional<item> next();

 private:
  std::size_t max_line_;
  std::string data_;
  bool discarding_ = false;
};

}  // namespace harness::bridge
