#include "harness/telemetry/telemetry_settings.hpp"

#include <algorithm>
#include <charconv>

#include "harness/core/errors.hpp"
#include "harness/net/url.hpp"

namespace harness::telemetry {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<std::string> percent_decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    int value = 0;
    auto [end, ec] = std::from_chars(s.data() + i + 1, s.data() + i + 3, value, 16);
    if (ec != std::errc() || end != s.data() + i + 3) return std::nullopt;
    out.push_back(static_cast<char>(value));
    i += 2;
  }
  return out;
}

error bad(const std::string& name, const std::string& problem, const std::string& hint = {}) {
  return make_error(core::errc::invalid_setting, name + ": " + problem, hint);
}

// The base endpoint gets the signal's path, as the specification says
// (".../v1/traces" after the base's own path); the traces endpoint is used as it is.
result<std::string> traces_url(const core::settings& settings) {
  std::string url = settings.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  std::string name = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
  if (url.empty()) {
    url = settings.get("OTEL_EXPORTER_OTLP_ENDPOINT");
    name = "OTEL_EXPORTER_OTLP_ENDPOINT";
    if (url.empty()) return std::string();
    url += url.ends_with('/') ? "v1/traces" : "/v1/traces";
  }
  if (!url.starts_with("http://") && !url.starts_with("https://")) {
    return bad(name, "'" + net::printable_url(url) + "' is not an http:// or https:// URL",
               "e.g. http://localhost:4318");
  }
  return url;
}

result<sampler> load_sampler(const core::settings& settings) {
  static const std::vector<std::pair<std::string, sampler_kind>> kinds = {
      {"always_on", sampler_kind::always_on},
      {"always_off", sampler_kind::always_off},
      {"traceidratio", sampler_kind::trace_id_ratio},
      {"parentbased_always_on", sampler_kind::parent_always_on},
      {"parentbased_always_off", sampler_kind::parent_always_off},
      {"parentbased_traceidratio", sampler_kind::parent_trace_id_ratio},
  };
  sampler out;
  const auto& name = settings.get("OTEL_TRACES_SAMPLER");
  auto found = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == name; });
  if (found == kinds.end()) {
    return bad("OTEL_TRACES_SAMPLER", "'" + name + "' is not a sampler this server knows",
               "use always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or "
               "parentbased_traceidratio");
  }
  out.kind = found->second;
  const auto& arg = settings.get("OTEL_TRACES_SAMPLER_ARG");
  if (!arg.empty()) {
    double ratio = -1;
    auto [end, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), ratio);
    if (ec != std::errc() || end != arg.data() + arg.size() || ratio < 0 || ratio > 1) {
      return bad("OTEL_TRACES_SAMPLER_ARG", "'" + arg + "' is not a ratio from 0 to 1", "e.g. 0.25");
    }
    out.ratio = ratio;
  }
  return out;
}

}  // namespace

std::vector<core::setting_spec> telemetry_setting_specs() {
  return {
      {"OTEL_SDK_DISABLED", "false", "true: no tracing, whatever else is set"},
      {"OTEL_EXPORTER_OTLP_ENDPOINT", "",
       "OTLP/HTTP collector base URL (e.g. http://localhost:4318); traces go to <it>/v1/traces. Empty: tracing off"},
      {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "", "the full traces URL, instead of the base endpoint's /v1/traces"},
      {"OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf", "http/protobuf or http/json"},
      {"OTEL_EXPORTER_OTLP_HEADERS", "", "headers for the collector, k1=v1,k2=v2 (percent-encoded values)", true},
      {"OTEL_EXPORTER_OTLP_TIMEOUT", "10000", "ms for one batch's export"},
      {"OTEL_SERVICE_NAME", "mcp-harness", "service.name of every span"},
      {"OTEL_RESOURCE_ATTRIBUTES", "", "more resource attributes, k1=v1,k2=v2 (deployment.environment=prod)"},
      {"OTEL_TRACES_SAMPLER", "parentbased_always_on",
       "always_on, always_off, traceidratio or parentbased_ of those: which traces are recorded"},
      {"OTEL_TRACES_SAMPLER_ARG", "", "the ratio (0..1) of the traceidratio samplers"},
      {"OTEL_BSP_SCHEDULE_DELAY", "5000", "ms a finished span may wait for its batch"},
      {"OTEL_BSP_MAX_QUEUE_SIZE", "2048", "finished spans kept for export; past this they are dropped and counted"},
      {"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "512", "spans per export request"},
      {"OTEL_CAPTURE_CONTENT", "false",
       "true: spans also carry content (code, tool arguments and results, LLM text), censored; off by default"},
  };
}

result<std::vector<std::pair<std::string, std::string>>> parse_key_values(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!text.empty()) {
    auto comma = text.find(',');
    auto item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (trim(item).empty()) continue;
    auto equals = item.find('=');
    if (equals == std::string_view::npos) return make_error(core::errc::invalid_setting, "an entry has no '='");
    auto key = percent_decode(trim(item.substr(0, equals)));
    auto value = percent_decode(trim(item.substr(equals + 1)));
    if (!key || !value || key->empty()) {
      return make_error(core::errc::invalid_setting, "an entry has an empty key or a bad %-escape");
    }
    out.emplace_back(std::move(*key), std::move(*value));
  }
  return out;
}

result<std::optional<telemetry_config>> load_telemetry_config(const core::settings& settings) {
  auto disabled = settings.get_bool("OTEL_SDK_DISABLED");
  if (!disabled) return disabled.error();
  auto url = traces_url(settings);
  if (!url) return url.error();
  if (*disabled || url->empty()) return std::optional<telemetry_config>();

  telemetry_config config;
  config.exporter.url = *url;
  auto protocol = settings.get_choice("OTEL_EXPORTER_OTLP_PROTOCOL", {"http/protobuf", "http/json"});
  if (!protocol) return protocol.error();
  config.exporter.protocol = *protocol == "http/json" ? otlp_protocol::json : otlp_protocol::protobuf;
  auto headers = parse_key_values(settings.get("OTEL_EXPORTER_OTLP_HEADERS"));
  if (!headers) return bad("OTEL_EXPORTER_OTLP_HEADERS", headers.error().message, "write k1=v1,k2=v2");
  for (auto& [k, v] : *headers) {
    if (k.find_first_of("\r\n:") != std::string::npos || v.find_first_of("\r\n") != std::string::npos) {
      return bad("OTEL_EXPORTER_OTLP_HEADERS", "a header name or value holds a line break or a colon");
    }
    config.exporter.headers.emplace_back(std::move(k), std::move(v));
  }
  auto timeout = settings.get_ms("OTEL_EXPORTER_OTLP_TIMEOUT", 100, 600000);
  if (!timeout) return timeout.error();
  config.exporter.timeout = *timeout;

  config.exporter.resource.push_back({"service.name", settings.get("OTEL_SERVICE_NAME")});
  auto extra = parse_key_values(settings.get("OTEL_RESOURCE_ATTRIBUTES"));
  if (!extra) return bad("OTEL_RESOURCE_ATTRIBUTES", extra.error().message, "write k1=v1,k2=v2");
  for (auto& [k, v] : *extra) {
    if (k != "service.name") config.exporter.resource.push_back({std::move(k), std::move(v)});
  }
  config.exporter.resource.push_back({"telemetry.sdk.name", std::string("mcp-harness")});
  config.exporter.resource.push_back({"telemetry.sdk.language", std::string("cpp")});

  auto sampling = load_sampler(settings);
  if (!sampling) return sampling.error();
  config.tracer.sampler = *sampling;
  auto delay = settings.get_ms("OTEL_BSP_SCHEDULE_DELAY", 10, 600000);
  if (!delay) return delay.error();
  config.tracer.schedule_delay = *delay;
  auto queue = settings.get_int("OTEL_BSP_MAX_QUEUE_SIZE", 1, 1 << 20);
  if (!queue) return queue.error();
  config.tracer.max_queue = static_cast<std::size_t>(*queue);
  auto batch = settings.get_int("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 1, 1 << 20);
  if (!batch) return batch.error();
  config.tracer.max_batch = std::min(static_cast<std::size_t>(*batch), config.tracer.max_queue);
  auto content = settings.get_bool("OTEL_CAPTURE_CONTENT");
  if (!content) return content.error();
  config.tracer.capture_content = *content;
  return std::optional<telemetry_config>(std::move(config));
}

}  // namespace harness::telemetry
