// Splits the byte stream of an attached, non-TTY container into stdout and
// stderr chunks. Docker prefixes each frame with 8 bytes: stream (0 stdin,
// 1 stdout, 2 stderr), three zero bytes, and the payload size (big endian u32).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace harness::docker {

enum class output_stream : std::uint8_t { stdin_echo = 0, stdout_stream = 1, stderr_stream = 2 };

struct output_chunk {
  output_stream stream = output_stream::stdout_stream;
  std::string data;
};

// Incremental parser: feed() what came off the socket, then next() until it
// returns nullopt. A frame larger than max_chunk comes out as several chunks,
// so one huge frame never forces a huge allocation. Not thread-safe.
class frame_demuxer {
 public:
  explicit frame_demuxer(std::size_t max_chunk = 64 * 1024) : max_chunk_(max_chunk) {}

  // Appends raw bytes. Returns false (and stays failed) on a malformed header
  // (unknown stream id or non-zero padding): the connection is not a frame stream.
  bool feed(std::string_view bytes);

  // The next complete chunk of payload, if any.
  std::optional<output_chunk> next();

  bool failed() const { return failed_; }
  // Bytes held that do not yet form a chunk (at most one header plus max_chunk).
  std::size_t buffered() const { return pending_.size() - offset_; }
  // True between frames: end of stream here is a clean end.
  bool at_frame_boundary() const { return remaining_ == 0 && buffered() == 0; }

 private:
  std::size_t max_chunk_;
  std::string pending_;
  std::size_t offset_ = 0;
  std::size_t remaining_ = 0;  // payload bytes still due for the current frame
  output_stream current_ = output_stream::stdout_stream;
  bool failed_ = false;
};

}  // namespace harness::docker
