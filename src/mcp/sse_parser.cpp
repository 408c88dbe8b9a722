#include "sse_parser.hpp"

#include <charconv>

namespace harness::mcp {
namespace {

constexpr std::size_t max_field_name = 16;  // the fields we know are shorter

}  // namespace

sse_parser::sse_parser(std::size_t max_event, std::function<void(const sse_event&)> on_event,
                       std::function<void(const message_identity&)> on_oversized)
    : max_event_(max_event),
      on_event_(std::move(on_event)),
      on_oversized_(std::move(on_oversized)),
      lines_(
          max_event, [this](std::string_view line) { on_line(line); }, [this](std::size_t) { on_line_overflow(); },
          [this](std::string_view bytes) { on_dropped_line_bytes(bytes); }) {}

void sse_parser::feed(std::string_view bytes) {
  // Normalize CR and CRLF line ends to LF (a lone CR ends a line in SSE).
  std::string normalized;
  normalized.reserve(bytes.size());
  for (char c : bytes) {
    if (c == '\r') {
      normalized.push_back('\n');
      last_was_cr_ = true;
      continue;
    }
    if (c == '\n' && last_was_cr_) {
      last_was_cr_ = false;
      continue;
    }
    last_was_cr_ = false;
    normalized.push_back(c);
  }
  lines_.feed(normalized);
}

void sse_parser::go_oversized() {
  if (oversized_) return;
  oversized_ = true;
  scanner_.reset();
  scanner_.feed(current_.data);
  current_.data.clear();
  current_.data.shrink_to_fit();
}

// A line too long to hold passes here piece by piece. Only a data line matters:
// its value is part of the event's data, which the scanner reads.
void sse_parser::on_dropped_line_bytes(std::string_view bytes) {
  while (!bytes.empty()) {
    switch (dropped_line_) {
      case dropped_line::field: {
        const std::size_t colon = bytes.find(':');
        const std::string_view name = bytes.substr(0, colon);
        if (dropped_field_.size() + name.size() > max_field_name) {
          dropped_line_ = dropped_line::other;
          return;
        }
        dropped_field_.append(name);
        if (colon == std::string_view::npos) return;
        bytes.remove_prefix(colon + 1);
        if (dropped_field_ != "data") {
          dropped_line_ = dropped_line::other;
          return;
        }
        go_oversized();
        has_data_ = true;
        dropped_line_ = dropped_line::skip_space;
        break;
      }
      case dropped_line::skip_space:
        if (bytes.front() == ' ') bytes.remove_prefix(1);
        dropped_line_ = dropped_line::data;
        break;
      case dropped_line::data:
        scanner_.feed(bytes);
        return;
      case dropped_line::other:
        return;
    }
  }
}

void sse_parser::on_line_overflow() {
  if (dropped_line_ == dropped_line::data || dropped_line_ == dropped_line::skip_space) scanner_.feed("\n");
  dropped_line_ = dropped_line::field;
  dropped_field_.clear();
}

void sse_parser::on_line(std::string_view line) {
  if (line.empty()) {  // blank line: dispatch
    if (has_id_) last_id_ = *current_.id;
    if (oversized_) {
      if (on_oversized_) on_oversized_(scanner_.identity());
      oversized_ = false;
      scanner_.reset();
    } else if (has_data_ || has_id_) {
      if (!current_.data.empty() && current_.data.back() == '\n') current_.data.pop_back();
      on_event_(current_);
    }
    current_ = sse_event{};
    has_data_ = has_id_ = false;
    return;
  }
  if (line.front() == ':') return;  // comment / keep-alive
  const std::size_t colon = line.find(':');
  std::string_view field = line.substr(0, colon);
  std::string_view value;
  if (colon != std::string_view::npos) {
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    has_data_ = true;
    if (current_.data.size() + value.size() + 1 > max_event_) go_oversized();
    if (oversized_) {
      scanner_.feed(value);
      scanner_.feed("\n");
    } else {
      current_.data.append(value);
      current_.data.push_back('\n');
    }
  } else if (field == "event") {
    current_.event = std::string(value);
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) {
      current_.id = std::string(value);
      has_id_ = true;
    }
  } else if (field == "retry") {
    long ms = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), ms);
    if (ec == std::errc() && ptr == value.data() + value.size() && ms >= 0) retry_ms_ = ms;
  }
}

}  // namespace harness::mcp
