// GET /metrics through the dispatcher, and request counting through a real
// in-process server over loopback (route patterns, not raw paths, as labels).
#include <gtest/gtest.h>

#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "harness/core/metrics.hpp"
#include "harness/http/api.hpp"
#include "harness/http/server.hpp"
#include "harness/http/services.hpp"
#include "http/run_dispatch.hpp"
#include "support/raw_http.hpp"

namespace harness::http {
namespace {

http_request get(std::string path) {
  http_request r;
  r.method = "GET";
  r.path = r.target = std::move(path);
  r.request_id = "req_m";
  return r;
}

TEST(MetricsRoute, RendersTheRegistryAsPrometheusText) {
  services svc{core::real_clock()};
  svc.metrics = std::make_shared<core::metrics_registry>();
  core::task_counter(*svc.metrics).with({"completed"}).inc(2);
  auto response = run_dispatch(make_api_router(), svc, get("/metrics"));
  EXPECT_EQ(response.status, 200u);
  EXPECT_EQ(response.header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(response.body.find("# TYPE harness_tasks_total counter\n"), std::string::npos) << response.body;
  EXPECT_NE(response.body.find("harness_tasks_total{status=\"completed\"} 2\n"), std::string::npos) << response.body;
}

TEST(MetricsRoute, AnswersServiceUnavailableWithoutARegistry) {
  services svc{core::real_clock()};
  auto response = run_dispatch(make_api_router(), svc, get("/metrics"));
  EXPECT_EQ(response.status, 503u);
  EXPECT_EQ(nlohmann::json::parse(response.body)["error"]["code"], "metrics_disabled");
}

TEST(MetricsRoute, RequestMetricsBoundMethodsAndRoutes) {
  core::metrics_registry registry;
  request_metrics recorder(registry);
  recorder.record("GET", "/tools/{name}", 200, 0.002);
  recorder.record("BREW", "", 404, 0.0001);  // unknown method, no route
  auto text = registry.render();
  EXPECT_NE(text.find(R"(harness_http_requests_total{method="GET",route="/tools/{name}",status="200"} 1)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(harness_http_requests_total{method="OTHER",route="unmatched",status="404"} 1)"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find(R"(harness_http_request_duration_seconds_bucket{method="GET",route="/tools/{name}",le="0.0025"} 1)"),
      std::string::npos)
      << text;
}

// The real server (Beast, one I/O thread) counts what it answers, labelled by route pattern.
TEST(MetricsRoute, ServerCountsEachRequestByRoutePattern) {
  boost::asio::io_context io;
  services svc{core::real_clock()};
  svc.metrics = std::make_shared<core::metrics_registry>();
  auto routes = make_api_router();
  server_config config;
  config.port = 0;
  auto server = create_http_server(io, config, routes, svc);
  auto port = server->start();
  ASSERT_TRUE(port) << port.error().describe();
  std::thread runner([&] { io.run(); });

  using harness::testing::http_call;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(http_call(*port, "GET", "/health"));
  ASSERT_EQ(http_call(*port, "GET", "/tools/fs__read_file")->status, 503);  // no registry: 503, route still known
  ASSERT_EQ(http_call(*port, "GET", "/no/such/path")->status, 404);
  ASSERT_EQ(http_call(*port, "PUT", "/health")->status, 405);
  auto scrape = http_call(*port, "GET", "/metrics");

  boost::asio::post(io, [&] { server->shutdown([&] { io.stop(); }); });
  runner.join();
  ASSERT_TRUE(scrape);
  const std::string& text = scrape->body;
  EXPECT_EQ(scrape->header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(text.find(R"(harness_http_requests_total{method="GET",route="/health",status="200"} 3)"), std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(route="/tools/{name}",status="503"} 1)"), std::string::npos) << text;
  EXPECT_EQ(text.find("fs__read_file"), std::string::npos) << "raw paths must not become labels";
  EXPECT_NE(text.find(R"(harness_http_requests_total{method="GET",route="unmatched",status="404"} 1)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(harness_http_requests_total{method="PUT",route="unmatched",status="405"} 1)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(harness_http_request_duration_seconds_count{method="GET",route="/health"} 3)"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace harness::http
