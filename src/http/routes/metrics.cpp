#include <array>
#include <charconv>

#include "harness/http/api.hpp"
#include "harness/http/errors.hpp"
#include "harness/http/services.hpp"

namespace harness::http {
namespace {

std::string_view method_label(std::string_view method) {
  static constexpr std::array<std::string_view, 7> known{"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"};
  for (auto m : known) {
    if (m == method) return m;
  }
  return "OTHER";  // a client-chosen method must not create new series
}

}  // namespace

request_metrics::request_metrics(core::metrics_registry& registry)
    : requests_(registry.counters("harness_http_requests_total", "HTTP requests answered, by method, route and status.",
                                  {"method", "route", "status"})),
      duration_(registry.histograms("harness_http_request_duration_seconds",
                                    "Time from the first byte of a request to the last byte of its response.",
                                    {"method", "route"})) {}

void request_metrics::record(std::string_view method, std::string_view route, unsigned status, double seconds) {
  std::string_view m = method_label(method);
  std::string_view r = route.empty() ? std::string_view("unmatched") : route;
  for (const auto& s : seen_) {
    if (s.status == status && s.method == m && s.route == r) {
      s.requests->inc();
      s.duration->observe(seconds);
      return;
    }
  }
  std::array<char, 8> digits{};
  auto [end, ec] = std::to_chars(digits.data(), digits.data() + digits.size(), status);
  std::string_view status_text(digits.data(), ec == std::errc() ? static_cast<std::size_t>(end - digits.data()) : 0);
  auto& requests = requests_.with({m, r, status_text});
  auto& duration = duration_.with({m, r});
  if (seen_.size() < max_seen) seen_.push_back({m, std::string(r), status, &requests, &duration});
  requests.inc();
  duration.observe(seconds);
}

http_response handle_metrics(const request_context& context) {
  if (!context.svc.metrics) {
    return error_response(http::errc::metrics_disabled, "this server was started without a metrics registry");
  }
  http_response response;
  response.body = context.svc.metrics->render();
  response.set_header("Content-Type", std::string(core::metrics_content_type));
  response.set_header("Cache-Control", "no-store");
  return response;
}

}  // namespace harness::http
