#include "harness/mcp/message_identity.hpp"
#include "harness/core/json_parse.hpp"

namespace harness::mcp {
namespace {

// Longer keys are neither "id" nor "method"; longer id values are no id we sent.
constexpr std::size_t max_key_bytes = 8;
constexpr std::size_t max_id_bytes = 256;

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

}  // namespace

void message_identity_scanner::feed(std::string_view bytes) {
  identity_.bytes += bytes.size();
  for (char c : bytes) {
    if (phase_ == phase::done) return;
    on_byte(c);
  }
}

void message_identity_scanner::on_byte(char c) {
  if (phase_ == phase::leading_blanks) {
    if (blank(c)) return;
    identity_.looks_like_message = c == '{' || c == '[';
    phase_ = c == '{' ? phase::object : c == '[' ? phase::batch : phase::done;
    depth_ = 1;
    return;
  }
  // The members of the top-level object are read only there: a batch, and every
  // nested value, only has its strings and brackets tracked to find where it ends.
  const bool top = phase_ == phase::object && depth_ == 1;
  if (in_string_) {
    if (capturing_id_) capture(c);
    if (escaped_) {
      escaped_ = false;
    } else if (c == '\\') {
      escaped_ = true;
    } else if (c == '"') {
      in_string_ = false;
      if (top && slot_ == slot::in_key) slot_ = slot::colon_expected;
      if (capturing_id_) finish_id();
      return;
    }
    if (top && slot_ == slot::in_key && key_.size() <= max_key_bytes) key_.push_back(c);
    return;
  }
  if (c == '"') {
    in_string_ = true;
    if (top && slot_ == slot::key_expected) {
      slot_ = slot::in_key;
      key_.clear();
    } else if (top && slot_ == slot::value_expected) {
      start_value();
      if (capturing_id_) capture(c);
    }
    return;
  }
  if (c == '{' || c == '[') {
    if (top && slot_ == slot::value_expected) {
      start_value();
      capturing_id_ = false;  // an object or array is no id
    }
    ++depth_;
    return;
  }
  if (c == '}' || c == ']') {
    if (top && capturing_id_) finish_id();
    if (--depth_ == 0) {
      identity_.complete = true;
      phase_ = phase::done;
    }
    return;
  }
  if (!top) return;
  if (blank(c) || c == ',') {
    if (capturing_id_ && !id_text_.empty()) finish_id();
    if (c == ',') slot_ = slot::key_expected;
    return;
  }
  if (c == ':' && slot_ == slot::colon_expected) {
    slot_ = slot::value_expected;
    return;
  }
  if (slot_ == slot::value_expected) start_value();  // a number or literal begins
  if (capturing_id_) capture(c);
}

void message_identity_scanner::start_value() {
  slot_ = slot::in_value;
  if (key_ == "method") identity_.has_method = true;
  capturing_id_ = key_ == "id";
  id_text_.clear();
}

void message_identity_scanner::capture(char c) {
  if (id_text_.size() <= max_id_bytes) id_text_.push_back(c);  // one byte over marks it too long
}

void message_identity_scanner::finish_id() {
  capturing_id_ = false;
  if (id_text_.size() > max_id_bytes) return;
  auto id = core::parse_json(id_text_);
  if (id.is_number_integer() || id.is_string() || id.is_null()) identity_.id = std::move(id);
}

message_identity identify_message(std::string_view text) {
  message_identity_scanner scanner;
  scanner.feed(text);
  return scanner.identity();
}

}  // namespace harness::mcp
