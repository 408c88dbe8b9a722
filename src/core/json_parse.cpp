#include "harness/core/json_parse.hpp"

#include <fmt/format.h>

namespace harness::core {
namespace {

using json = nlohmann::json;

// nlohmann's own DOM builder, with a depth count in front of it. sax_parse is a
// template over the handler, so the forwarding calls inline: the limit costs a
// compare per array or object, nothing per scalar.
class depth_limited_builder {
 public:
  using number_integer_t = json::number_integer_t;
  using number_unsigned_t = json::number_unsigned_t;
  using number_float_t = json::number_float_t;
  using string_t = json::string_t;
  using binary_t = json::binary_t;

  depth_limited_builder(json& root, std::size_t max_depth) : dom_(root, /*allow_exceptions=*/false), max_(max_depth) {}

  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(number_float_t v, const string_t& s) { return dom_.number_float(v, s); }
  bool string(string_t& v) { return dom_.string(v); }
  bool binary(binary_t& v) { return dom_.binary(v); }
  bool key(string_t& v) { return dom_.key(v); }
  bool start_object(std::size_t n) { return deeper() && dom_.start_object(n); }
  bool start_array(std::size_t n) { return deeper() && dom_.start_array(n); }
  bool end_object() {
    --depth_;
    return dom_.end_object();
  }
  bool end_array() {
    --depth_;
    return dom_.end_array();
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    reason_ = e.what();
    // "[json.exception.parse_error.101] parse error at ..." -> "parse error at ..."
    if (reason_.starts_with('[')) {
      if (auto end = reason_.find("] "); end != std::string::npos) reason_.erase(0, end + 2);
    }
    return false;
  }

  // Set once the parse failed because of depth; the reason then comes from the caller,
  // which knows the byte offset.
  bool too_deep() const { return too_deep_; }
  std::string& reason() { return reason_; }

 private:
  bool deeper() {
    if (++depth_ <= max_) return true;
    too_deep_ = true;
    return false;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::size_t max_;
  std::size_t depth_ = 0;
  bool too_deep_ = false;
  std::string reason_;
};

// Where the opening bracket that went past `max_depth` stands: the (max_depth + 1)th
// unclosed bracket outside strings. Only runs on the error path.
std::size_t offending_bracket(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return text.size();
}

std::string too_deep_reason(std::size_t max_depth, std::size_t offset) {
  return fmt::format("JSON nests deeper than {} levels of arrays and objects (at byte offset {})", max_depth, offset);
}

}  // namespace

json parse_json(std::string_view text, std::string* why, std::size_t max_depth) {
  json root;
  depth_limited_builder builder(root, max_depth);
  if (json::sax_parse(text.data(), text.data() + text.size(), &builder)) return root;
  if (why)
    *why = builder.too_deep() ? too_deep_reason(max_depth, offending_bracket(text, max_depth))
                              : std::move(builder.reason());
  return json(json::value_t::discarded);
}

}  // namespace harness::core
