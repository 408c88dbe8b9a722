// Spans: the timed steps of a trace (an HTTP request, a task, a turn, an LLM
// call, a code block, a tool call, an MCP request). Context is passed by
// hand: whoever starts a step gets a `span` and gives `span.parent()` (or
// the span itself) to the code below it, which starts its own steps as
// children. There is no "current span" hidden in a thread-local: coroutines
// hop threads and interleave on one.
//
// A span made while tracing is off, or in a trace that is not sampled,
// records nothing and costs no allocation; it still carries the trace's
// identity, so a caller's traceparent goes on to the LLM and the MCP servers
// unchanged when we do not trace ourselves.
//
// Attributes are outside data on their way to a collector: code that sets
// one must not put raw PII, secrets or code into it unless the tracer's
// capture_content() says the operator asked for content (and then only text
// that has passed the censor).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace harness::telemetry {

class tracer;

enum class span_kind { internal = 1, server = 2, client = 3 };
enum class span_status { unset = 0, ok = 1, error = 2 };

// A list of strings is what the GenAI conventions use for finish reasons.
using attribute_value = std::variant<std::string, std::int64_t, double, bool, std::vector<std::string>>;
struct attribute {
  std::string key;
  attribute_value value;
};

// What identifies a span to the world: what a traceparent carries.
struct span_context {
  std::string trace_id;  // 32 lowercase hex digits; empty: no trace at all
  std::string span_id;   // 16 lowercase hex digits
  bool sampled = false;
  std::string state;  // the caller's tracestate, passed on as it came
  bool valid() const { return !trace_id.empty() && !span_id.empty(); }
  // "00-<trace>-<span>-01" (or -00 when not sampled); empty when !valid().
  std::string traceparent() const;
};

struct span_event {
  std::string name;
  std::int64_t time_ns = 0;  // Unix epoch nanoseconds
  std::vector<attribute> attributes;
};

// A finished span, as the exporter sends it.
struct span_data {
  span_context context;
  std::string parent_span_id;  // empty for a root
  std::string name;
  span_kind kind = span_kind::internal;
  std::int64_t start_ns = 0;  // Unix epoch nanoseconds
  std::int64_t end_ns = 0;
  std::vector<attribute> attributes;
  std::vector<span_event> events;
  span_status status = span_status::unset;
  std::string status_message;
};

class span;

// Where child spans hang: a span's identity and the tracer that records the
// children. Cheap to copy; may outlive the span it names. Empty (no tracer,
// no context): children are inert and carry no trace.
class span_parent {
 public:
  span_parent() = default;
  span_parent(std::shared_ptr<tracer> owner, span_context context)
      : tracer_(std::move(owner)), context_(std::move(context)) {}
  // A new span below this one; ended when destroyed or by end().
  span child(std::string_view name, span_kind kind = span_kind::internal) const;
  const span_context& context() const { return context_; }
  // The traceparent that names this span as the parent; empty without a trace.
  std::string traceparent() const { return context_.traceparent(); }
  // Whether the operator asked for content (censored code and text) in attributes.
  bool capture_content() const;

 private:
  std::shared_ptr<tracer> tracer_;
  span_context context_;
};

// One step. Move-only; ends (and is handed to the exporter) on end() or when
// destroyed, whichever comes first. Not thread-safe: one coroutine owns it.
class span {
 public:
  span() = default;
  span(span&& other) noexcept = default;
  span& operator=(span&& other) noexcept;
  ~span();

  // Whether attributes and events go anywhere (tracing on and the trace sampled).
  // Check it before building a costly value.
  bool recording() const { return data_ != nullptr; }
  const span_context& context() const { return context_; }
  span_parent parent() const { return {tracer_, context_}; }
  span child(std::string_view name, span_kind kind = span_kind::internal) const { return parent().child(name, kind); }
  bool capture_content() const { return parent().capture_content(); }

  // Each is nothing when !recording(); a key set again keeps the last value.
  void set(std::string_view key, std::string value) { put(key, std::move(value)); }
  void set(std::string_view key, const char* value) { put(key, std::string(value)); }
  void set(std::string_view key, std::int64_t value) { put(key, value); }
  void set(std::string_view key, int value) { put(key, static_cast<std::int64_t>(value)); }
  void set(std::string_view key, std::size_t value) { put(key, static_cast<std::int64_t>(value)); }
  void set(std::string_view key, double value) { put(key, value); }
  void set(std::string_view key, bool value) { put(key, value); }
  void set(std::string_view key, std::vector<std::string> value) { put(key, std::move(value)); }
  void add_event(std::string_view name, std::vector<attribute> attributes = {});
  // OpenTelemetry's updateName: a server span learns its route only once routed.
  void rename(std::string_view name);
  // Status error with the typed error code, as the status's description and
  // the `error.type` attribute. No message: an error's text may quote a
  // user id, a provider's answer or a tool's arguments.
  void fail(std::string_view code);
  void end();

 private:
  friend class tracer;
  friend class span_parent;
  void put(std::string_view key, attribute_value value);

  std::shared_ptr<tracer> tracer_;
  span_context context_;
  std::unique_ptr<span_data> data_;  // null: not recording, or ended
};

}  // namespace harness::telemetry
