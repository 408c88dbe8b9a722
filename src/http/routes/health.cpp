#include <chrono>

#include "harness/core/version.hpp"
#include "harness/http/api.hpp"
#include "harness/http/services.hpp"

namespace harness::http {
namespace {

// Probes (load balancers, orchestrators, a monitoring loop gone wild) may ask
// thousands of times a second. Building the document of every component costs
// more than the rest of the request, so the rendered answer is reused for this
// long: a probe sees the state of at most 100 ms ago. The components refresh
// their own state in the background anyway (the engine check, the MCP servers).
constexpr std::chrono::milliseconds reuse_for{100};

http_response render(const services& svc) {
  bool healthy = true;
  nlohmann::json components = nlohmann::json::object();
  for (const auto& source : svc.health) {
    core::component_health health = source->check();
    healthy = healthy && (health.up || !health.required);
    nlohmann::json entry = health.detail.is_object() ? health.detail : nlohmann::json::object();
    entry["status"] = health.up ? "up" : "down";
    entry["required"] = health.required;
    components[source->name()] = std::move(entry);
  }
  auto uptime = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - svc.started_at);
  nlohmann::json body{{"status", healthy ? "ok" : "degraded"},
                      {"version", core::version()},
                      {"uptimeSeconds", uptime.count()},
                      {"components", std::move(components)}};
  return json_response(healthy ? 200 : 503, body);
}

}  // namespace

http_response handle_health(const request_context& context) {
  auto& cache = *context.svc.health_answer;
  auto now = std::chrono::steady_clock::now();
  http_response response;
  {
    std::lock_guard lock(cache.mutex);
    if (cache.status == 0 || now - cache.rendered_at >= reuse_for) {
      auto fresh = render(context.svc);
      cache.status = fresh.status;
      cache.body = std::move(fresh.body);
      cache.rendered_at = now;
    }
    response.status = cache.status;
    response.body = cache.body;
  }
  response.set_header("Content-Type", "application/json");
  response.set_header("Cache-Control", "no-store");
  return response;
}

}  // namespace harness::http
