#include "frames.hpp"
#include "harness/core/json_parse.hpp"

#include "harness/bridge/errors.hpp"
#include "harness/core/base64.hpp"

namespace harness::bridge {

result<nlohmann::json> parse_frame(const std::string& line) {
  std::string why;
  nlohmann::json frame = core::parse_json(line, &why);
  if (frame.is_discarded()) {
    return make_error(bridge::errc::protocol_error,
                      "the sandbox wrote a line that is not a protocol frame (" + why + "): '" + line.substr(0, 120) +
                          (line.size() > 120 ? "...'" : "'"),
                      "write output with console.log, never to process.stdout directly");
  }
  if (!frame.is_object() || !frame.contains("type") || !frame["type"].is_string()) {
    return make_error(bridge::errc::protocol_error, "the sandbox wrote JSON that is not a protocol frame (no \"type\")",
                      "write output with console.log, never to process.stdout directly");
  }
  return frame;
}

std::string string_field(const nlohmann::json& frame, const char* key) {
  auto it = frame.find(key);
  return it != frame.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool bool_field(const nlohmann::json& frame, const char* key) {
  auto it = frame.find(key);
  return it != frame.end() && it->is_boolean() && it->get<bool>();
}

std::size_t size_field(const nlohmann::json& frame, const char* key) {
  auto it = frame.find(key);
  return it != frame.end() && it->is_number_unsigned() ? it->get<std::size_t>() : 0;
}

std::string dump_frame(const nlohmann::json& frame) {
  return frame.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<file_change> parse_file_change(const nlohmann::json& entry) {
  if (!entry.is_object()) return std::nullopt;
  file_change change;
  change.root = string_field(entry, "root");
  change.path = string_field(entry, "path");
  change.op = string_field(entry, "op");
  if (change.root.empty() || change.path.empty()) return std::nullopt;
  if (change.op == "write") {
    change.too_large = bool_field(entry, "tooLarge");
    change.size = size_field(entry, "size");
    if (!change.too_large) {
      auto content = core::base64_decode(string_field(entry, "content"));
      if (!content) return std::nullopt;
      change.content = std::move(*content);
      change.size = change.content.size();
    }
  } else if (change.op == "symlink") {
    change.target = string_field(entry, "target");
  } else if (change.op != "delete") {
    return std::nullopt;
  }
  return change;
}

}  // namespace harness::bridge
