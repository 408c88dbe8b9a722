// OTLP over HTTP (https://opentelemetry.io/docs/specs/otlp/): finished spans
// as an ExportTraceServiceRequest, in protobuf (the default) or in OTLP's
// JSON mapping, POSTed through the project's one outbound HTTP client.
// opentelemetry-cpp is not packaged in Debian 12, so the few messages a
// trace export needs are written here; tests decode them with the official
// protobuf definitions.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "harness/net/http_client.hpp"
#include "harness/telemetry/span.hpp"
#include "harness/telemetry/tracer.hpp"

namespace harness::telemetry {

enum class otlp_protocol { protobuf, json };

// The ExportTraceServiceRequest of `spans`, all under one resource (the
// service.name and other OTEL_RESOURCE_ATTRIBUTES) and one instrumentation scope.
std::string encode_otlp_protobuf(const std::vector<span_data>& spans, const std::vector<attribute>& resource);
std::string encode_otlp_json(const std::vector<span_data>& spans, const std::vector<attribute>& resource);

struct otlp_exporter_options {
  std::string url;  // the traces endpoint, ".../v1/traces"
  otlp_protocol protocol = otlp_protocol::protobuf;
  net::header_list headers;  // OTEL_EXPORTER_OTLP_HEADERS (Authorization and the like)
  std::vector<attribute> resource;
  std::chrono::milliseconds timeout{10000};  // OTEL_EXPORTER_OTLP_TIMEOUT, per batch
};

// A batch fails on a transport error or a status other than 2xx (the
// message names the status, never a header value).
std::unique_ptr<span_exporter> create_otlp_exporter(std::shared_ptr<net::http_client> client,
                                                    otlp_exporter_options options);

}  // namespace harness::telemetry
