#include "harness/docker/frame_demuxer.hpp"

#include <algorithm>

namespace harness::docker {

bool frame_demuxer::feed(std::string_view bytes) {
  if (failed_) return false;
  // Drop what was consumed before appending, so the buffer stays small.
  if (offset_ > 0) {
    pending_.erase(0, offset_);
    offset_ = 0;
  }
  pending_.append(bytes);
  return true;
}

std::optional<output_chunk> frame_demuxer::next() {
  while (!failed_) {
    if (remaining_ == 0) {
      if (buffered() < 8) return std::nullopt;
      auto header = reinterpret_cast<const unsigned char*>(pending_.data() + offset_);
      if (header[0] > 2 || header[1] != 0 || header[2] != 0 || header[3] != 0) {
        failed_ = true;
        return std::nullopt;
      }
      current_ = static_cast<output_stream>(header[0]);
      remaining_ = (std::size_t{header[4]} << 24) | (std::size_t{header[5]} << 16) | (std::size_t{header[6]} << 8) |
                   std::size_t{header[7]};
      offset_ += 8;
      continue;  // a zero-size frame is skipped
    }
    std::size_t take = std::min({remaining_, buffered(), max_chunk_});
    if (take == 0) return std::nullopt;
    output_chunk chunk{current_, pending_.substr(offset_, take)};
    offset_ += take;
    remaining_ -= take;
    return chunk;
  }
  return std::nullopt;
}

}  // namespace harness::docker
