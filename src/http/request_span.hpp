// The server span of one HTTP request: the child of the caller's
// traceparent (and tracestate) when it sent a valid one, else the root of a
// new trace; named "<METHOD> <route>" once the request is routed. Its
// traceparent goes back in the response, so a caller can find the trace.
#pragma once

#include <memory>
#include <string_view>

#include "harness/http/message.hpp"
#include "harness/telemetry/span.hpp"

namespace harness::telemetry {
class tracer;
}

namespace harness::http {

// Sets request.trace to the new span's parent handle. With tracing off
// (`tracer` null) the span is inert and costs nothing but the header lookup.
telemetry::span start_request_span(const std::shared_ptr<telemetry::tracer>& tracer, http_request& request);

// The route (a pattern, never the raw path: paths carry ids), the status and
// the `traceparent` response header.
void finish_request_span(telemetry::span& span, const http_request& request, std::string_view route,
                         http_response& response);

}  // namespace harness::http
