#include "harness/bridge/frame_lines.hpp"

namespace harness::bridge {

frame_lines::frame_lines(std::size_t max_line)
    : max_line_(max_line),
      splitter_(
          max_line, [this](std::string_view line) { ready_.emplace_back(std::string(line)); }, [](std::size_t) {}) {
  splitter_.on_overflow_start([this] { ready_.emplace_back(std::nullopt); });
}

std::optional<result<std::string>> frame_lines::next() {
  if (ready_.empty()) return std::nullopt;
  auto line = std::move(ready_.front());
  ready_.pop_front();
  if (!line) {
    return result<std::string>(
        make_error("frame_too_large", "the sandbox wrote a line longer than " + std::to_string(max_line_) + " bytes"));
  }
  return result<std::string>(std::move(*line));
}

}  // namespace harness::bridge
