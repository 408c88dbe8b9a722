#include <chrono>

#include "harness/core/version.hpp"
#include "harness/http/access_gate.hpp"
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

// "ok", "starting" (a required component is still coming up for the first
// time) or "degraded" (one is down), with the components that are not up.
struct overall {
  std::string status = "ok";
  nlohmann::json waiting_for = nlohmann::json::array();
  nlohmann::json components = nlohmann::json::object();
};

overall assess(const services& svc) {
  overall out;
  bool starting = false, down = false;
  for (const auto& source : svc.health) {
    core::component_health health = source->check();
    nlohmann::json entry = health.detail.is_object() ? health.detail : nlohmann::json::object();
    entry["status"] = !health.configured ? "not_configured" : health.up ? "up" : health.starting ? "starting" : "down";
    entry["required"] = health.required;
    out.components[source->name()] = std::move(entry);
    if (!health.configured || health.up || !health.required) continue;
    out.waiting_for.push_back(source->name());
    (health.starting ? starting : down) = true;
  }
  out.status = down ? "degraded" : starting ? "starting" : "ok";
  return out;
}

// "keys" when requests need an API key, "open" when they do not (no gate, or
// no key made yet on a loopback host). Says nothing about the keys themselves.
std::string_view auth_mode(const services& svc) {
  return svc.access ? svc.access->mode() : "open";
}

// The answer with every component's details, and the summary without them:
// the details (engine endpoint and version, the LLM's base URL and model,
// process ids, file paths) help an operator and an attacker alike, so only
// an admin key (or a server running open) sees them. A pending OAuth
// authorization URL goes to an admin key only: whoever completes it decides
// which account the server acts as, and while the server runs open anything
// that reaches it could read it. Open, the answer says where it is instead.
struct rendered {
  unsigned status;
  std::string body, open_body, summary;
};

constexpr std::string_view authorization_url_elsewhere =
    "not shown while the server runs without API keys: it is in the server's log (\"needs authorization\"), and "
    "GET /health shows it to an admin key";

// The components with every MCP server's pending authorization URL replaced by where to find it.
nlohmann::json without_authorization_urls(nlohmann::json components) {
  for (auto& [name, entry] : components.items()) {
    if (!entry.is_object()) continue;
    auto oauth = entry.find("oauth");
    if (oauth == entry.end() || !oauth->is_object() || !oauth->contains("authorizationUrl")) continue;
    (*oauth)["authorizationUrl"] = authorization_url_elsewhere;
  }
  return components;
}

rendered render(const services& svc) {
  auto state = assess(svc);
  auto uptime = std::chrono::duration_cast<std::chrono::seconds>(svc.clock.steady_now() - svc.started_at);
  nlohmann::json summary_components = nlohmann::json::object();
  for (const auto& [name, entry] : state.components.items()) {
    summary_components[name] = {{"status", entry["status"]}, {"required", entry["required"]}};
  }
  nlohmann::json body{{"status", state.status},
                      {"version", core::version()},
                      {"uptimeSeconds", uptime.count()},
                      {"auth", auth_mode(svc)}};
  nlohmann::json summary = body;
  nlohmann::json open_body = body;
  open_body["components"] = without_authorization_urls(state.components);
  body["components"] = std::move(state.components);
  summary["components"] = std::move(summary_components);
  return {state.status == "ok" ? 200u : 503u, body.dump(), open_body.dump(), summary.dump()};
}

http_response no_store(http_response response) {
  response.set_header("Cache-Control", "no-store");
  return response;
}

}  // namespace

http_response handle_health(const request_context& context) {
  auto& cache = *context.svc.health_answer;
  auto now = context.svc.clock.steady_now();
  http_response response;
  {
    std::lock_guard lock(cache.mutex);
    if (cache.status == 0 || now - cache.rendered_at >= reuse_for) {
      auto fresh = render(context.svc);
      cache.status = fresh.status;
      cache.body = std::move(fresh.body);
      cache.open_body = std::move(fresh.open_body);
      cache.summary = std::move(fresh.summary);
      cache.rendered_at = now;
    }
    response.status = cache.status;
    // The open caller is an admin without a key.
    const bool admin_key = context.caller.admin && !context.caller.key_id.empty();
    response.body = admin_key ? cache.body : context.caller.admin ? cache.open_body : cache.summary;
  }
  response.set_header("Content-Type", "application/json");
  response.set_header("Cache-Control", "no-store");
  return response;
}

http_response handle_health_live(const request_context&) {
  // The process answers: that is all liveness means (a restart would not help otherwise).
  return no_store(json_response(200, {{"status", "alive"}}));
}

http_response handle_health_ready(const request_context& context) {
  auto state = assess(context.svc);
  nlohmann::json body{{"status", state.status == "ok" ? "ready" : state.status}};
  if (!state.waiting_for.empty()) body["notReady"] = std::move(state.waiting_for);
  return no_store(json_response(state.status == "ok" ? 200 : 503, body));
}

}  // namespace harness::http
