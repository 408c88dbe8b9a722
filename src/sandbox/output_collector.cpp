#include "harness/sandbox/output_collector.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace harness::sandbox {

bool output_collector::add(const docker::output_chunk& chunk) {
  auto size = static_cast<std::int64_t>(chunk.data.size());
  std::int64_t room = std::max<std::int64_t>(0, limit_ - kept_);
  std::int64_t take = std::min(room, size);
  std::string& target = chunk.stream == docker::output_stream::stderr_stream ? stderr_ : stdout_;
  target.append(chunk.data, 0, static_cast<std::size_t>(take));
  kept_ += take;
  dropped_ += size - take;
  return dropped_ == 0;
}

std::string output_collector::take_stdout() {
  if (truncated()) {
    stdout_ += fmt::format("\n[output cut: more than {} bytes were printed; the block was stopped]\n", limit_);
  }
  return std::move(stdout_);
}

}  // namespace harness::sandbox
