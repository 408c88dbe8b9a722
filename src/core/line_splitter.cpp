#include "harness/core/line_splitter.hpp"

namespace harness::core {

line_splitter::line_splitter(std::size_t max_line, std::function<void(std::string_view)> on_line,
                             std::function<void(std::size_t)> on_overflow,
                             std::function<void(std::string_view)> on_dropped)
    : max_line_(max_line),
      on_line_(std::move(on_line)),
      on_overflow_(std::move(on_overflow)),
      on_dropped_(std::move(on_dropped)) {}

void line_splitter::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    const std::size_t nl = bytes.find('\n');
    const std::string_view chunk = bytes.substr(0, nl);
    if (discarding_) {
      discarded_ += chunk.size();
      if (on_dropped_) on_dropped_(chunk);
    } else if (buffer_.size() + chunk.size() > max_line_) {
      // Too long: drop what we hold and everything up to the next newline.
      discarding_ = true;
      discarded_ = buffer_.size() + chunk.size();
      if (on_dropped_) {
        on_dropped_(buffer_);
        on_dropped_(chunk);
      }
      buffer_.clear();
      buffer_.shrink_to_fit();
      if (on_overflow_start_) on_overflow_start_();
    } else {
      buffer_.append(chunk);
    }
    if (nl == std::string_view::npos) return;
    bytes.remove_prefix(nl + 1);
    if (discarding_) {
      discarding_ = false;
      if (on_overflow_) on_overflow_(discarded_);
      discarded_ = 0;
      continue;
    }
    std::string_view line(buffer_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    on_line_(line);
    buffer_.clear();
  }
}

}  // namespace harness::core
