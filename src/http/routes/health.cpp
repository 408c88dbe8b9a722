#include <chrono>

#include "harness/core/version.hpp"
#include "harness/http/api.hpp"
#include "harness/http/services.hpp"

namespace harness::http {

http_response handle_health(const request_context& context) {
  const services& svc = context.svc;
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
  auto response = json_response(healthy ? 200 : 503, body);
  response.set_header("Cache-Control", "no-store");
  return response;
}

}  // namespace harness::http
