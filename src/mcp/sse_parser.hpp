// Server-Sent Events parser (the WHATWG event-stream format) for Streamable HTTP:
// fields data/event/id/retry, comments, CRLF/LF/CR line ends, a cap per event.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "harness/core/line_splitter.hpp"
#include "harness/mcp/message_identity.hpp"

namespace harness::mcp {

struct sse_event {
  std::string event = "message";
  std::string data;
  std::optional<std::string> id;  // set when the event carried an id field
};

class sse_parser {
 public:
  // on_event gets each dispatched event (also those with empty data: priming events
  // carry only an id and a retry). An event whose data grows past max_event is
  // dropped instead, and on_oversized gets what could be read of its data (its
  // JSON-RPC id and method; bytes = the size of the data).
  sse_parser(std::size_t max_event, std::function<void(const sse_event&)> on_event,
             std::function<void(const message_identity&)> on_oversized);

  void feed(std::string_view bytes);

  // The last event id seen (the Last-Event-ID to resume with), and the last retry in ms.
  const std::string& last_event_id() const { return last_id_; }
  std::optional<long> retry_ms() const { return retry_ms_; }
  // Part of an event arrived and its end did not (a stream that ends now was cut in it).
  bool mid_event() const { return has_data_ || has_id_ || oversized_ || lines_.pending() > 0 || lines_.dropping(); }

 private:
  void on_line(std::string_view line);
  void on_dropped_line_bytes(std::string_view bytes);
  void on_line_overflow();
  void go_oversized();

  std::size_t max_event_;
  std::function<void(const sse_event&)> on_event_;
  std::function<void(const message_identity&)> on_oversized_;
  core::line_splitter lines_;
  sse_event current_;
  bool has_data_ = false;
  bool has_id_ = false;
  bool last_was_cr_ = false;
  std::string last_id_;
  std::optional<long> retry_ms_;
  // An oversized event: its data goes through the scanner instead of into current_.
  bool oversized_ = false;
  message_identity_scanner scanner_;
  // An oversized line: its field name as it arrives, then whether it is a data line.
  std::string dropped_field_;
  enum class dropped_line { field, skip_space, data, other } dropped_line_ = dropped_line::field;
};

}  // namespace harness::mcp
