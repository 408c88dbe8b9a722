// Splits a byte stream into newline-delimited lines with a cap on line length,
// so one huge or endless line from a misbehaving server costs bounded memory.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace harness::mcp {

class line_splitter {
 public:
  // on_line gets each complete line without "\n" (and without a trailing "\r").
  // on_overflow gets the number of bytes of a line that exceeded max_line and was dropped.
  // on_dropped, when set, sees the bytes of such a line as they pass (from its start,
  // before on_overflow ends it), so a caller can still tell what the line was without
  // holding it (see message_identity_scanner).
  line_splitter(std::size_t max_line, std::function<void(std::string_view)> on_line,
                std::function<void(std::size_t)> on_overflow, std::function<void(std::string_view)> on_dropped = {});

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
  std::string buffer_;
  bool discarding_ = false;
  std::size_t discarded_ = 0;
};

}  // namespace harness::mcp
