#include "strict_json.hpp"
#include "harness/core/json_parse.hpp"
#include "harness/http/errors.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace harness::http {
namespace {

using json = nlohmann::json;

// The body may be a megabyte; a message quoting from it stays a line: a key
// or a number is cut at quote_max bytes, the parser's reason or a key's path
// at long_quote_max.
constexpr std::size_t quote_max = 60;
constexpr std::size_t long_quote_max = 160;

std::string clipped(std::string_view text, std::size_t max = quote_max) {
  if (text.size() <= max) return std::string(text);
  return fmt::format("{}...", text.substr(0, max));
}

std::string describe_byte(char c) {
  if (c == '\0') return "a NUL byte";
  auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte < 0x7f) return fmt::format("'{}'", c);
  return fmt::format("byte 0x{:02x}", byte);
}

// `offset` is where the parser noticed the extra data: its first byte when
// that is a NUL, a bracket or a stray byte, the last byte of a trailing number
// or string. The message says "more follows" rather than "this starts here".
std::string trailing_data(std::string_view text, std::size_t offset) {
  // The parser may give up only at the end of input (a second value that is an
  // unterminated string): name the last byte then, never the one past it.
  if (offset >= text.size()) offset = text.empty() ? 0 : text.size() - 1;
  if (text.empty()) return "the body must be exactly one JSON value";
  return fmt::format(
      "the body must be exactly one JSON value, but more follows it ({} at byte offset {}); remove everything after "
      "the value (whitespace is fine)",
      describe_byte(text[offset]), offset);
}

// nlohmann's reason without its prefix ("[json.exception.parse_error.101] parse
// error at line 1, column 8: ") and without its "last read: '...'" echo, which
// can hold most of the body; the byte offset says where instead.
std::string syntax_reason(std::string_view what) {
  auto column = what.find("column ");
  if (column != std::string_view::npos) {
    auto colon = what.find(": ", column);
    if (colon != std::string_view::npos) what.remove_prefix(colon + 2);
  }
  auto echo = what.find("; last read: ");
  if (echo == std::string_view::npos) return clipped(what, long_quote_max);
  auto expected = what.rfind("; expected ");
  std::string reason(what.substr(0, echo));
  if (expected != std::string_view::npos && expected > echo) reason += what.substr(expected);
  return clipped(reason, long_quote_max);
}

// Builds the value the way nlohmann's own DOM parser does, except that a key
// already present in its object is an error instead of an overwrite. The check
// is free: try_emplace finds the duplicate in the lookup that inserts.
class strict_builder final : public nlohmann::json_sax<json> {
 public:
  strict_builder(std::string_view text, json& root) : text_(text), root_(root) {}

  bool null() override { return add(nullptr); }
  bool boolean(bool value) override { return add(value); }
  bool number_integer(number_integer_t value) override { return add(value); }
  bool number_unsigned(number_unsigned_t value) override { return add(value); }
  bool number_float(number_float_t value, const string_t&) override { return add(value); }
  // The lexer clears its buffer before the next token, so taking the string
  // saves copying it (a 100 KiB "code" field, say).
  bool string(string_t& value) override { return add(std::move(value)); }
  bool binary(binary_t& value) override { return add(std::move(value)); }
  bool start_object(std::size_t) override { return open(json::value_t::object); }
  bool start_array(std::size_t) override { return open(json::value_t::array); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(string_t& name) override {
    auto& members = open_.back()->get_ref<json::object_t&>();
    auto [slot, inserted] = members.try_emplace(std::move(name));  // leaves `name` alone when present
    if (!inserted) {
      failure_ = make_error(http::errc::invalid_body,
                            fmt::format("the key '{}' appears twice in one object; send each key once", path_to(name)));
      return false;
    }
    member_ = &slot->second;
    return true;
  }

  bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& e) override {
    // `position` counts the bytes read, the end of input included: the byte
    // at position - 1 is where the parser gave up.
    std::size_t stopped = std::min(position == 0 ? 0 : position - 1, text_.size());
    if (complete_) {
      failure_ = make_error(http::errc::malformed_json, trailing_data(text_, stopped));
    } else if (e.id == number_overflow) {
      // The token is the number's own text, which ends at `position`.
      std::size_t start = position - std::min(position, token.size());
      failure_ =
          make_error(http::errc::invalid_body, fmt::format("the number {} at byte offset {} is out of a double's range "
                                                           "(its magnitude exceeds about 1.8e308); send a smaller one",
                                                           clipped(token), start));
    } else {
      std::string where = stopped == text_.size() ? fmt::format("at byte offset {} (the end of the body)", stopped)
                                                  : fmt::format("at byte offset {}", stopped);
      failure_ = make_error(
          http::errc::malformed_json,
          fmt::format("the body is not valid JSON: {} {}; check quoting and commas", syntax_reason(e.what()), where));
    }
    return false;
  }

  // Why the parse stopped; set whenever sax_parse returned false.
  const std::optional<error>& failure() const { return failure_; }

 private:
  // nlohmann's parse_error id for a number that overflows a double.
  static constexpr int number_overflow = 406;

  // Places a finished value in the array or member being filled, or as the root.
  template <class Value>
  json* place(Value&& value) {
    if (open_.empty()) {
      root_ = json(std::forward<Value>(value));
      return &root_;
    }
    if (open_.back()->is_array()) {
      auto& items = open_.back()->get_ref<json::array_t&>();
      items.emplace_back(std::forward<Value>(value));
      return &items.back();
    }
    *member_ = json(std::forward<Value>(value));
    return member_;
  }

  template <class Value>
  bool add(Value&& value) {
    place(std::forward<Value>(value));
    complete_ = open_.empty();
    return true;
  }

  bool open(json::value_t type) {
    if (open_.size() >= core::max_json_depth) {
      // The SAX interface does not say where a bracket stands; parse_json's scan does.
      std::string why;
      core::parse_json(text_, &why);
      failure_ =
          make_error(http::errc::invalid_body, fmt::format("the body is refused: {}; send a flatter document", why));
      return false;
    }
    open_.push_back(place(type));
    return true;
  }

  bool close() {
    open_.pop_back();
    complete_ = open_.empty();
    return true;
  }

  // "files[2].path" for `name` in the innermost open object, its start cut
  // when deeply nested. Only runs on the error path, so it finds each
  // member's name by searching its parent.
  std::string path_to(const std::string& name) const {
    std::string path;
    for (std::size_t i = 1; i < open_.size(); ++i) {
      const json& parent = *open_[i - 1];
      if (parent.is_array()) {
        path += fmt::format("[{}]", parent.size() - 1);  // an open child is always the last element
        continue;
      }
      for (const auto& [member, value] : parent.get_ref<const json::object_t&>()) {
        if (&value == open_[i]) {
          if (!path.empty()) path += '.';
          path += clipped(member);
          break;
        }
      }
    }
    path = path.empty() ? clipped(name) : fmt::format("{}.{}", path, clipped(name));
    if (path.size() <= long_quote_max) return path;
    // Deep nesting: keep the innermost steps, from a step's start.
    auto cut = path.find_first_of(".[", path.size() - long_quote_max);
    return "..." + path.substr(cut == std::string::npos ? path.size() - long_quote_max : cut);
  }

  std::string_view text_;
  json& root_;
  std::vector<json*> open_;  // the arrays and objects being filled, outermost first
  json* member_ = nullptr;   // the member of the innermost object whose value comes next
  bool complete_ = false;    // the root value has ended
  std::optional<error> failure_;
};

}  // namespace

result<json> parse_strict_json(std::string_view text) {
  json root;
  strict_builder builder(text, root);
  if (!json::sax_parse(text.data(), text.data() + text.size(), &builder)) return *builder.failure();
  // nlohmann's lexer takes a NUL byte for the end of input, so a NUL and
  // whatever follows it passed as the end. A NUL cannot stand inside a JSON
  // value (a string must escape it), so the first one begins trailing data.
  if (const void* nul = std::memchr(text.data(), '\0', text.size())) {
    return make_error(http::errc::malformed_json, trailing_data(text, static_cast<const char*>(nul) - text.data()));
  }
  return root;
}

}  // namespace harness::http
