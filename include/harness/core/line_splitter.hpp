// Splits a byte stream into newline-delimited lines with a cap on line length,
// so one huge or endless line from a misbehaving peer (an MCP server, a
// sandbox's runtime) costs bounded memory. The one line splitter: MCP stdio
// and SSE read with it, and so do the sandbox frame channels (through
// bridge::frame_lines).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace harness::core {

class line_splitter {
 public:
  // on_line gets each complete line without "\n" (and without a trailing "\r").
  // on_overflow gets the number of bytes of a line that exceeded max_line and was dropped.
  // on_dropped, when set, sees the bytes of such a line as they pass (from its start,
  // before on_overflow ends it), so a caller can still tell what the line was without
  // holding it (see message_identity_scanner).
  line_splitter(std::size_t max_line, std::function<void(std::string_view)> on_line,
                std::function<void(std::size_t)> on_overflow, std::function<void(std::string_view)> on_dropped = {});

  // Called once, as soon as a line passes max_line (before its newline has
  // arrived, which may be never), for readers that give up at once instead of
  // waiting for the end of an endless line; on_overflow still follows if the
  // line ends.
  void on_overflow_start(std::function<void()> handler) { on_overflow_start_ = std::move(handler); }

  // Feeds bytes; calls the callbacks synchronously.
  void feed(std::string_view bytes);

  // Bytes held for an unfinished line.
  std::size_t pending() const { return buffer_.size(); }
  // The unfinished line held so far (empty while an oversized one is being dropped).
  std::string_view partial() const { return buffer_; }
  // An oversized line is being dropped and has not ended yet.
  bool dropping() const { return discarding_; }

 private:
  std::size_t max_line_;
  std::function<void(std::string_view)> on_line_;
  std::function<void(std::size_t)> on_overflow_;
  std::function<void(std::string_view)> on_dropped_;
  std::function<void()> on_overflow_start_;
  std::string buffer_;
  bool discarding_ = false;
  std::size_t discarded_ = 0;
};

}  // namespace harness::core
