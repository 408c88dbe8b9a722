#include "harness/core/trace_context.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace harness::core {
namespace {

// tracestate: at most 32 list members and 512 characters (the W3C limits a
// receiver may enforce); printable ASCII without the separators' misuse.
constexpr std::size_t max_state_chars = 512;
constexpr std::size_t max_state_members = 32;

bool lower_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool all_zero(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == '0'; });
}

bool state_ok(std::string_view state) {
  if (state.empty() || state.size() > max_state_chars) return false;
  std::size_t members = 1;
  for (char c : state) {
    if (c < 0x20 || c > 0x7e) return false;
    if (c == ',') ++members;
  }
  return members <= max_state_members;
}

}  // namespace

std::string trace_context::traceparent_for(std::string_view span_id) const {
  std::string out = "00-" + trace_id + "-";
  out += span_id;
  out += sampled ? "-01" : "-00";
  return out;
}

std::optional<trace_context> parse_trace_context(std::string_view traceparent,
                                                 std::optional<std::string_view> tracestate) {
  // version "-" trace-id "-" parent-id "-" flags: 2 + 1 + 32 + 1 + 16 + 1 + 2 = 55.
  constexpr std::size_t length = 55;
  if (traceparent.size() < length) return std::nullopt;
  const auto version = traceparent.substr(0, 2);
  if (!lower_hex(version) || version == "ff") return std::nullopt;
  // Version 00 is exactly 55 characters; a later one may add fields after a '-'.
  if (version == "00" ? traceparent.size() != length : traceparent.size() > length && traceparent[length] != '-') {
    return std::nullopt;
  }
  if (traceparent[2] != '-' || traceparent[35] != '-' || traceparent[52] != '-') return std::nullopt;
  const auto trace_id = traceparent.substr(3, 32);
  const auto parent_id = traceparent.substr(36, 16);
  const auto flags = traceparent.substr(53, 2);
  if (!lower_hex(trace_id) || !lower_hex(parent_id) || !lower_hex(flags)) return std::nullopt;
  if (all_zero(trace_id) || all_zero(parent_id)) return std::nullopt;
  trace_context context;
  context.trace_id = trace_id;
  context.parent_id = parent_id;
  context.sampled = (hex_digit_value(flags[1]) & 1) != 0;
  if (tracestate && state_ok(*tracestate)) context.state = *tracestate;
  return context;
}

std::optional<trace_context> trace_context_from_meta(const nlohmann::json& meta) {
  if (!meta.is_object()) return std::nullopt;
  auto parent = meta.find("traceparent");
  if (parent == meta.end() || !parent->is_string()) return std::nullopt;
  std::optional<std::string_view> state;
  if (auto found = meta.find("tracestate"); found != meta.end() && found->is_string()) {
    state = found->get_ref<const std::string&>();
  }
  return parse_trace_context(parent->get_ref<const std::string&>(), state);
}

}  // namespace harness::core
