// The standard OpenTelemetry environment variables the tracer reads
// (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/),
// and the one of ours: OTEL_CAPTURE_CONTENT. Tracing is on when a traces
// endpoint is set and OTEL_SDK_DISABLED is not true.
#pragma once

#include <optional>
#include <vector>

#include "harness/core/settings.hpp"
#include "harness/telemetry/otlp.hpp"
#include "harness/telemetry/tracer.hpp"

namespace harness::telemetry {

std::vector<core::setting_spec> telemetry_setting_specs();

struct telemetry_config {
  tracer_options tracer;
  otlp_exporter_options exporter;
};

// nullopt when tracing is off; an error names the setting that is wrong.
result<std::optional<telemetry_config>> load_telemetry_config(const core::settings& settings);

// OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES: "k1=v1,k2=v2",
// values percent-decoded, spaces around keys and values trimmed.
result<std::vector<std::pair<std::string, std::string>>> parse_key_values(std::string_view text);

}  // namespace harness::telemetry
