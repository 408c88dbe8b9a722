// Keeps a container's stdout and stderr up to a byte cap shared by both. What
// comes past the cap is counted, not stored: the host never buffers unbounded data.
#pragma once

#include <cstdint>
#include <string>

#include "harness/docker/frame_demuxer.hpp"

namespace harness::sandbox {

class output_collector {
 public:
  explicit output_collector(std::int64_t limit_bytes) : limit_(limit_bytes) {}

  // Keeps what fits; returns false once the cap has been passed (this chunk or earlier).
  bool add(const docker::output_chunk& chunk);

  bool truncated() const { return dropped_ > 0; }
  std::int64_t dropped_bytes() const { return dropped_; }
  // The texts, with a note appended to stdout when something was cut.
  std::string take_stdout();
  std::string take_stderr() { return std::move(stderr_); }

 private:
  std::int64_t limit_;
  std::int64_t kept_ = 0;
  std::int64_t dropped_ = 0;
  std::string stdout_, stderr_;
};

}  // namespace harness::sandbox
