// W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent`
// and `tracestate` a caller sends so that our work joins its trace, as HTTP
// headers or, in MCP, as the same-named keys of a request's `_meta` (the
// specification's one exception to prefixed keys there). Outside input: a
// value that breaks the format is dropped, never an error, as the W3C
// specification says (the work then starts a trace of its own).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace harness::core {

struct trace_context {
  std::string trace_id;   // 32 lowercase hex digits, not all zero
  std::string parent_id;  // 16 lowercase hex digits, not all zero: the caller's span
  bool sampled = false;   // flag 01: the caller records this trace
  std::string state;      // tracestate, kept only when well-formed (else empty)

  // The traceparent that names `span_id` as the parent, in this trace.
  std::string traceparent_for(std::string_view span_id) const;
};

// The value of one lowercase hex digit ('0'-'9', 'a'-'f'), as trace and span
// ids are written. For digits already checked (parse_trace_context does, and
// our own ids are made so): anything else gives a meaningless number.
constexpr int hex_digit_value(char c) {
  return c <= '9' ? c - '0' : c - 'a' + 10;
}

// Reads a traceparent (and its tracestate, which is dropped alone when bad).
// Version 00 exactly; a later version is read by its version-00 prefix, as
// the W3C rules for forward compatibility say. nullopt when unusable.
std::optional<trace_context> parse_trace_context(std::string_view traceparent,
                                                 std::optional<std::string_view> tracestate = std::nullopt);

// The same from an MCP request's `_meta` object (any JSON: not an object, or
// without a string traceparent, is nullopt).
std::optional<trace_context> trace_context_from_meta(const nlohmann::json& meta);

}  // namespace harness::core
