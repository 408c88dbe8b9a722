// The frames a sandbox's runtime writes, one JSON object per line, cut out of
// its byte stream for a frame channel (the pipe channel and the container's
// attach stream share it). A line longer than the cap is reported the moment
// it passes the cap, without waiting for a newline that may never come.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "harness/core/error.hpp"
#include "harness/core/line_splitter.hpp"

namespace harness::bridge {

class frame_lines {
 public:
  explicit frame_lines(std::size_t max_line);
  frame_lines(const frame_lines&) = delete;  // the splitter's callbacks hold `this`
  frame_lines& operator=(const frame_lines&) = delete;

  void append(std::string_view bytes) { splitter_.feed(bytes); }

  // The next complete line (without its newline), in order; a frame_too_large
  // error in the place of a line that passed the cap (its bytes are dropped,
  // later lines still come); nullopt when more bytes are needed.
  std::optional<result<std::string>> next();

 private:
  std::size_t max_line_;
  std::deque<std::optional<std::string>> ready_;  // nullopt marks a line that was too long
  core::line_splitter splitter_;
};

}  // namespace harness::bridge
