// The tracer, when the OTEL_* settings turn tracing on: spans exported over
// OTLP/HTTP through the curl loop every outbound request shares.
#pragma once

#include <memory>

#include <boost/asio/any_io_executor.hpp>

#include "harness/core/settings.hpp"

namespace harness::core {
class metrics_registry;
}
namespace harness::net {
class curl_loop;
}
namespace harness::telemetry {
class tracer;
}

namespace harness::app {

// Null when tracing is off; an error names the setting that is wrong. The
// tracer's export loop is started.
result<std::shared_ptr<telemetry::tracer>> build_tracer(const boost::asio::any_io_executor& executor,
                                                        const core::settings& settings,
                                                        std::shared_ptr<net::curl_loop> curl_loop,
                                                        std::shared_ptr<core::metrics_registry> metrics);

}  // namespace harness::app
