#include "harness/telemetry/span.hpp"

#include "harness/core/utf8.hpp"
#include "harness/telemetry/tracer.hpp"

namespace harness::telemetry {
namespace {

// A string attribute's cap: spans are kept in a bounded queue, and a
// collector refuses a batch with a huge value (censored code, when content
// capture is on, is the longest thing we set).
constexpr std::size_t max_value_bytes = 8192;

// Text from outside (a tool's name, an error message) as valid UTF-8, cut at
// a character boundary: protobuf's string fields must be UTF-8, and one bad
// byte makes a collector refuse the whole batch.
std::string clean_text(std::string_view s) {
  std::string out;
  out.reserve(std::min(s.size(), max_value_bytes));
  for (std::size_t i = 0; i < s.size();) {
    auto n = core::utf8_sequence_length(s, i);
    if (out.size() + std::max<std::size_t>(n, 3) > max_value_bytes) break;
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

// Every string of a value, made clean.
void clean_value(attribute_value& value) {
  if (auto* s = std::get_if<std::string>(&value)) *s = clean_text(*s);
  if (auto* list = std::get_if<std::vector<std::string>>(&value)) {
    for (auto& item : *list) item = clean_text(item);
  }
}

}  // namespace

std::string span_context::traceparent() const {
  if (!valid()) return {};
  std::string out;
  out.reserve(55);
  out += "00-";
  out += trace_id;
  out += '-';
  out += span_id;
  out += sampled ? "-01" : "-00";
  return out;
}

span span_parent::child(std::string_view name, span_kind kind) const {
  if (!tracer_) {
    // Tracing off: the child carries the caller's trace onward unchanged.
    span inert;
    inert.context_ = context_;
    return inert;
  }
  return tracer_->start_span(name, kind, context_);
}

bool span_parent::capture_content() const {
  return tracer_ && tracer_->capture_content();
}

span& span::operator=(span&& other) noexcept {
  if (this != &other) {
    end();
    tracer_ = std::move(other.tracer_);
    context_ = std::move(other.context_);
    data_ = std::move(other.data_);
  }
  return *this;
}

span::~span() {
  end();
}

void span::put(std::string_view key, attribute_value value) {
  if (!data_) return;
  clean_value(value);
  for (auto& a : data_->attributes) {
    if (a.key == key) {
      a.value = std::move(value);
      return;
    }
  }
  data_->attributes.push_back({std::string(key), std::move(value)});
}

void span::add_event(std::string_view name, std::vector<attribute> attributes) {
  if (!data_) return;
  for (auto& a : attributes) clean_value(a.value);
  data_->events.push_back({clean_text(name), tracer_->now_ns(), std::move(attributes)});
}

void span::rename(std::string_view name) {
  if (data_) data_->name = clean_text(name);
}

void span::fail(std::string_view code) {
  if (!data_) return;
  data_->status = span_status::error;
  data_->status_message = clean_text(code);
  put("error.type", std::string(code));
}

void span::end() {
  if (!data_) return;
  data_->end_ns = tracer_->now_ns();
  tracer_->finish(std::move(data_));
}

span tracer::make_span(span_context context, std::unique_ptr<span_data> data) {
  span s;
  s.tracer_ = shared_from_this();
  s.context_ = std::move(context);
  if (data) {
    data->name = clean_text(data->name);
    data->start_ns = now_ns();
  }
  s.data_ = std::move(data);
  return s;
}

}  // namespace harness::telemetry
