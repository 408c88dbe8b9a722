// ExportTraceServiceRequest (opentelemetry/proto/collector/trace/v1) and the
// messages under it, in protobuf and in OTLP's JSON mapping. Field numbers
// are those of opentelemetry-proto's trace.proto, common.proto and
// resource.proto; tests/telemetry decodes the output with the official definitions.
#include <nlohmann/json.hpp>

#include "harness/core/trace_context.hpp"
#include "harness/core/version.hpp"
#include "harness/telemetry/otlp.hpp"
#include "proto_writer.hpp"

namespace harness::telemetry {
namespace {

using json = nlohmann::json;

constexpr std::string_view scope_name = "mcp-harness";

// "0af7651916cd43dd8448eb211c80319c" -> 16 bytes; ids are ours, always well-formed hex.
std::string hex_bytes(std::string_view hex) {
  std::string out;
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(core::hex_digit_value(hex[i]) << 4 | core::hex_digit_value(hex[i + 1])));
  }
  return out;
}

// W3C trace flags: bit 0 is "sampled".
std::uint32_t trace_flags(const span_context& context) {
  return context.sampled ? 1 : 0;
}

// --- protobuf -------------------------------------------------------------

// AnyValue: string_value 1, bool_value 2, int_value 3, double_value 4,
// array_value 5 (ArrayValue: values 1) -- a oneof.
proto_writer any_value(const attribute_value& value) {
  proto_writer v;
  if (const auto* list = std::get_if<std::vector<std::string>>(&value)) {
    proto_writer array;
    for (const auto& item : *list) {
      proto_writer element;
      element.always_bytes(1, item);
      array.message(1, element);
    }
    v.message(5, array);
  } else if (const auto* s = std::get_if<std::string>(&value)) {
    v.always_bytes(1, *s);
  } else if (const auto* b = std::get_if<bool>(&value)) {
    v.always_varint(2, *b ? 1 : 0);
  } else if (const auto* i = std::get_if<std::int64_t>(&value)) {
    v.always_varint(3, static_cast<std::uint64_t>(*i));
  } else {
    v.float64(4, std::get<double>(value));
  }
  return v;
}

// KeyValue: key 1, value 2.
void add_attributes(proto_writer& out, std::uint32_t field, const std::vector<attribute>& attributes) {
  for (const auto& a : attributes) {
    proto_writer kv;
    kv.bytes(1, a.key);
    kv.message(2, any_value(a.value));
    out.message(field, kv);
  }
}

// Span: trace_id 1, span_id 2, trace_state 3, parent_span_id 4, name 5,
// kind 6, start 7, end 8, attributes 9, events 11, status 15, flags 16.
proto_writer span_message(const span_data& s) {
  proto_writer m;
  m.bytes(1, hex_bytes(s.context.trace_id));
  m.bytes(2, hex_bytes(s.context.span_id));
  m.bytes(3, s.context.state);
  m.bytes(4, hex_bytes(s.parent_span_id));
  m.bytes(5, s.name);
  m.uint(6, static_cast<std::uint64_t>(s.kind));
  m.fixed_64(7, static_cast<std::uint64_t>(s.start_ns));
  m.fixed_64(8, static_cast<std::uint64_t>(s.end_ns));
  add_attributes(m, 9, s.attributes);
  for (const auto& e : s.events) {  // Event: time 1, name 2, attributes 3
    proto_writer event;
    event.fixed_64(1, static_cast<std::uint64_t>(e.time_ns));
    event.bytes(2, e.name);
    add_attributes(event, 3, e.attributes);
    m.message(11, event);
  }
  if (s.status != span_status::unset) {  // Status: message 2, code 3
    proto_writer status;
    status.bytes(2, s.status_message);
    status.uint(3, static_cast<std::uint64_t>(s.status));
    m.message(15, status);
  }
  m.fixed_32(16, trace_flags(s.context));
  return m;
}

// --- JSON -----------------------------------------------------------------

json any_value_json(const attribute_value& value) {
  if (const auto* list = std::get_if<std::vector<std::string>>(&value)) {
    json values = json::array();
    for (const auto& item : *list) values.push_back({{"stringValue", item}});
    return {{"arrayValue", {{"values", std::move(values)}}}};
  }
  if (const auto* s = std::get_if<std::string>(&value)) return {{"stringValue", *s}};
  if (const auto* b = std::get_if<bool>(&value)) return {{"boolValue", *b}};
  // int64 is a decimal string in the protobuf JSON mapping.
  if (const auto* i = std::get_if<std::int64_t>(&value)) return {{"intValue", std::to_string(*i)}};
  return {{"doubleValue", std::get<double>(value)}};
}

json attributes_json(const std::vector<attribute>& attributes) {
  json out = json::array();
  for (const auto& a : attributes) out.push_back({{"key", a.key}, {"value", any_value_json(a.value)}});
  return out;
}

json span_json(const span_data& s) {
  // OTLP/JSON writes ids as hex, not as the mapping's base64.
  json out{{"traceId", s.context.trace_id},
           {"spanId", s.context.span_id},
           {"name", s.name},
           {"kind", static_cast<int>(s.kind)},
           {"startTimeUnixNano", std::to_string(s.start_ns)},
           {"endTimeUnixNano", std::to_string(s.end_ns)},
           {"attributes", attributes_json(s.attributes)},
           {"flags", trace_flags(s.context)}};
  if (!s.parent_span_id.empty()) out["parentSpanId"] = s.parent_span_id;
  if (!s.context.state.empty()) out["traceState"] = s.context.state;
  if (!s.events.empty()) {
    json events = json::array();
    for (const auto& e : s.events) {
      events.push_back({{"timeUnixNano", std::to_string(e.time_ns)},
                        {"name", e.name},
                        {"attributes", attributes_json(e.attributes)}});
    }
    out["events"] = std::move(events);
  }
  if (s.status != span_status::unset) {
    out["status"] = {{"code", static_cast<int>(s.status)}};
    if (!s.status_message.empty()) out["status"]["message"] = s.status_message;
  }
  return out;
}

}  // namespace

std::string encode_otlp_protobuf(const std::vector<span_data>& spans, const std::vector<attribute>& resource) {
  proto_writer scope;  // InstrumentationScope: name 1, version 2
  scope.bytes(1, scope_name);
  scope.bytes(2, core::version());
  proto_writer scope_spans;  // ScopeSpans: scope 1, spans 2
  scope_spans.message(1, scope);
  for (const auto& s : spans) scope_spans.message(2, span_message(s));
  proto_writer resource_message;  // Resource: attributes 1
  add_attributes(resource_message, 1, resource);
  proto_writer resource_spans;  // ResourceSpans: resource 1, scope_spans 2
  resource_spans.message(1, resource_message);
  resource_spans.message(2, scope_spans);
  proto_writer request;  // ExportTraceServiceRequest: resource_spans 1
  request.message(1, resource_spans);
  return request.take();
}

std::string encode_otlp_json(const std::vector<span_data>& spans, const std::vector<attribute>& resource) {
  json list = json::array();
  for (const auto& s : spans) list.push_back(span_json(s));
  json scope{{"name", scope_name}, {"version", core::version()}};
  json request{{"resourceSpans", json::array({{{"resource", {{"attributes", attributes_json(resource)}}},
                                               {"scopeSpans", json::array({{{"scope", scope}, {"spans", list}}})}}})}};
  // Text from outside (a tool's name, an error message) may hold bad UTF-8: replaced, never a throw.
  return request.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace harness::telemetry
