// A line-oriented duplex channel to one sandbox runtime: NDJSON frames in
// both directions. Implementations: a container's attached stdio (Docker), a
// local child process's pipes (tests, development), an in-memory fake.
#pragma once

#include <string>

#include <boost/asio/awaitable.hpp>

#include "harness/core/error.hpp"

namespace harness::bridge {

class frame_channel {
 public:
  virtual ~frame_channel() = default;

  // The next line without its '\n'. Errors: "channel_closed" at end of
  // stream, "frame_too_large" when a line exceeds the channel's cap (the rest
  // of that line is discarded), "cancelled" after cancel().
  virtual boost::asio::awaitable<result<std::string>> read_line() = 0;

  // Writes `line` + '\n'. Callers serialise their writes (one at a time).
  virtual boost::asio::awaitable<status> write_line(std::string line) = 0;

  // Makes pending and future reads and writes fail with "cancelled".
  virtual void cancel() = 0;
};

}  // namespace harness::bridge
