#include "harness/mcp/sse_parser.hpp"

#include <charconv>

namespace harness::mcp {

sse_parser::sse_parser(std::size_t max_event, std::function<void(const sse_event&)> on_event,
                       std::function<void(const std::string&)> on_error)
    : max_event_(max_event),
      on_event_(std::move(on_event)),
      on_error_(std::move(on_error)),
      lines_(
          max_event, [this](std::string_view line) { on_line(line); },
          [this](std::size_t n) {
            oversized_ = true;
            if (on_error_) on_error_("SSE line of " + std::to_string(n) + " bytes exceeds the limit; event dropped");
          }) {}

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

void sse_parser::on_line(std::string_view line) {
  if (line.empty()) {  // blank line: dispatch
    if (has_id_) last_id_ = *current_.id;
    if (oversized_) {
      oversized_ = false;
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
    if (current_.data.size() + value.size() + 1 > max_event_) {
      oversized_ = true;
      current_.data.clear();
      if (on_error_) on_error_("SSE event exceeds the size limit; dropped");
      return;
    }
    if (!oversized_) {
      current_.data.append(value);
      current_.data.push_back('\n');
    }
    has_data_ = true;
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
