#include "request_span.hpp"

#include "harness/core/trace_context.hpp"
#include "harness/telemetry/tracer.hpp"

namespace harness::http {

telemetry::span start_request_span(const std::shared_ptr<telemetry::tracer>& tracer, http_request& request) {
  auto traceparent = request.header("traceparent");
  if (!tracer && !traceparent) return {};
  std::optional<core::trace_context> remote;
  if (traceparent) remote = core::parse_trace_context(*traceparent, request.header("tracestate"));
  auto span = telemetry::tracer::start_root(tracer, request.method, telemetry::span_kind::server, remote);
  request.trace = span.parent();
  return span;
}

void finish_request_span(telemetry::span& span, const http_request& request, std::string_view route,
                         http_response& response) {
  if (!span.context().valid()) return;
  response.set_header("traceparent", span.context().traceparent());
  if (!span.recording()) return;
  std::string name = request.method;
  if (!route.empty()) {
    name += ' ';
    name += route;
    span.set("http.route", std::string(route));
  }
  span.rename(name);
  span.set("http.request.method", request.method);
  span.set("http.response.status_code", static_cast<std::int64_t>(response.status));
  span.set("harness.request_id", request.request_id);
  if (response.status >= 500) span.fail(std::to_string(response.status));
}

}  // namespace harness::http
