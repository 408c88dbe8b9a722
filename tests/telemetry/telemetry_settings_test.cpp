#include "harness/telemetry/telemetry_settings.hpp"

#include <gtest/gtest.h>

namespace harness::telemetry {
namespace {

result<std::optional<telemetry_config>> load(std::map<std::string, std::string> env) {
  auto specs = telemetry_setting_specs();
  core::setting_sources sources;
  sources.env = std::move(env);
  auto resolved = core::settings::resolve(specs, sources);
  EXPECT_TRUE(resolved) << resolved.error().message;
  return load_telemetry_config(*resolved);
}

TEST(TelemetrySettings, TracingIsOffWithoutAnEndpointOrWhenDisabled) {
  auto off = load({});
  ASSERT_TRUE(off);
  EXPECT_FALSE(off->has_value());
  auto disabled = load({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"}, {"OTEL_SDK_DISABLED", "true"}});
  ASSERT_TRUE(disabled);
  EXPECT_FALSE(disabled->has_value());
}

TEST(TelemetrySettings, TheBaseEndpointGetsTheSignalPathAndTheTracesEndpointIsTakenAsItIs) {
  auto base = load({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"}});
  ASSERT_TRUE(base && base->has_value());
  EXPECT_EQ((*base)->exporter.url, "http://127.0.0.1:4318/v1/traces");
  auto slash = load({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/otlp/"}});
  EXPECT_EQ((*slash)->exporter.url, "http://collector:4318/otlp/v1/traces");
  auto traces = load(
      {{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:1"}, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "https://b:2/custom"}});
  EXPECT_EQ((*traces)->exporter.url, "https://b:2/custom");
}

TEST(TelemetrySettings, HeadersResourceSamplerAndProtocolAreRead) {
  auto config = load({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"},
                      {"OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"},
                      {"OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Basic%20abc, x-tenant = t1"},
                      {"OTEL_SERVICE_NAME", "harness-eu"},
                      {"OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=prod,service.name=ignored"},
                      {"OTEL_TRACES_SAMPLER", "parentbased_traceidratio"},
                      {"OTEL_TRACES_SAMPLER_ARG", "0.25"},
                      {"OTEL_CAPTURE_CONTENT", "true"}});
  ASSERT_TRUE(config && config->has_value()) << (config ? "" : config.error().message);
  const auto& c = **config;
  EXPECT_EQ(c.exporter.protocol, otlp_protocol::json);
  ASSERT_EQ(c.exporter.headers.size(), 2u);
  EXPECT_EQ(c.exporter.headers[0].second, "Basic abc");
  EXPECT_EQ(c.exporter.headers[1].first, "x-tenant");
  EXPECT_EQ(std::get<std::string>(c.exporter.resource[0].value), "harness-eu");
  EXPECT_EQ(c.exporter.resource[1].key, "deployment.environment");
  EXPECT_EQ(c.tracer.sampler.kind, sampler_kind::parent_trace_id_ratio);
  EXPECT_DOUBLE_EQ(c.tracer.sampler.ratio, 0.25);
  EXPECT_TRUE(c.tracer.capture_content);
}

TEST(TelemetrySettings, AWrongValueNamesItsSetting) {
  auto url = load({{"OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318"}});
  ASSERT_FALSE(url);
  EXPECT_NE(url.error().message.find("OTEL_EXPORTER_OTLP_ENDPOINT"), std::string::npos);
  auto sampler = load({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:1"}, {"OTEL_TRACES_SAMPLER", "sometimes"}});
  ASSERT_FALSE(sampler);
  EXPECT_NE(sampler.error().message.find("OTEL_TRACES_SAMPLER"), std::string::npos);
  auto ratio = load({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:1"}, {"OTEL_TRACES_SAMPLER_ARG", "2"}});
  ASSERT_FALSE(ratio);
  auto header = load({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:1"}, {"OTEL_EXPORTER_OTLP_HEADERS", "novalue"}});
  ASSERT_FALSE(header);
  auto escape = load({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:1"}, {"OTEL_EXPORTER_OTLP_HEADERS", "a=%zz"}});
  ASSERT_FALSE(escape);
  auto newline = load({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:1"}, {"OTEL_EXPORTER_OTLP_HEADERS", "a=b%0Ac"}});
  ASSERT_FALSE(newline);
}

}  // namespace
}  // namespace harness::telemetry
