#include "tracing_setup.hpp"

#include "harness/core/clock.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/metrics.hpp"
#include "harness/net/http_client.hpp"
#include "harness/net/url.hpp"
#include "harness/telemetry/otlp.hpp"
#include "harness/telemetry/telemetry_settings.hpp"
#include "harness/telemetry/tracer.hpp"

namespace harness::app {

result<std::shared_ptr<telemetry::tracer>> build_tracer(const boost::asio::any_io_executor& executor,
                                                        const core::settings& settings,
                                                        std::shared_ptr<net::curl_loop> curl_loop,
                                                        std::shared_ptr<core::metrics_registry> metrics) {
  auto config = telemetry::load_telemetry_config(settings);
  if (!config) return config.error();
  if (!*config) return std::shared_ptr<telemetry::tracer>();
  // A client of its own: two exports at most in flight, and a queue of them
  // never delays an LLM or MCP request waiting for the shared client's slots.
  net::client_options options;
  options.max_concurrent = 2;
  options.max_queued = 4;
  auto client = net::create_http_client(std::move(curl_loop), options);
  const auto url = net::printable_url((*config)->exporter.url);
  auto exporter = telemetry::create_otlp_exporter(std::move(client), std::move((*config)->exporter));
  auto tracer = telemetry::tracer::create(executor, core::real_clock(), (*config)->tracer, std::move(exporter),
                                          std::move(metrics));
  tracer->start();
  // The URL only: the headers may hold a collector's credentials.
  core::log_info("tracing: spans go to {} (OTLP/HTTP)", url);
  return tracer;
}

}  // namespace harness::app
