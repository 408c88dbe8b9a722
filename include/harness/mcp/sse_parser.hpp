// Server-Sent Events parser (the WHATWG event-stream format) for Streamable HTTP:
// fields data/event/id/retry, comments, CRLF/LF/CR line ends, a cap per event.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "harness/mcp/line_splitter.hpp"

namespace harness::mcp {

struct sse_event {
  std::string event = "message";
  std::string data;
  std::optional<std::string> id;  // set when the event carried an id field
};

class sse_parser {
 public:
  // on_event gets each dispatched event (also those with empty data: priming events
  // carry only an id and a retry). on_error gets a one-line reason for a dropped event.
  sse_parser(std::size_t max_event, std::function<void(const sse_event&)> on_event,
             std::function<void(const std::string&)> on_error);

  void feed(std::string_view bytes);

  // The last event id seen (the Last-Event-ID to resume with), and the last retry in ms.
  const std::string& last_event_id() const { return last_id_; }
  std::optional<long> retry_ms() const { return retry_ms_; }

 private:
  void on_line(std::string_view line);

  std::size_t max_event_;
  std::function<void(const sse_event&)> on_event_;
  std::function<void(const std::string&)> on_error_;
  line_splitter lines_;
  sse_event current_;
  bool has_data_ = false;
  bool has_id_ = false;
  bool oversized_ = false;
  bool last_was_cr_ = false;
  std::string last_id_;
  std::optional<long> retry_ms_;
};

}  // namespace harness::mcp
