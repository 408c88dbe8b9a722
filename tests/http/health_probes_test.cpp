// /health while a component is still starting, and the Kubernetes probes
// /health/live and /health/ready, through the dispatcher without a socket.
#include <gtest/gtest.h>

#include "harness/auth/api_key.hpp"
#include "harness/auth/key_store.hpp"
#include "harness/http/access_gate.hpp"
#include "harness/http/api.hpp"
#include "harness/http/services.hpp"
#include "http/run_dispatch.hpp"

namespace harness::http {
namespace {

class state_health final : public core::health_source {
 public:
  state_health(std::string name, bool up, bool starting) : name_(std::move(name)), up_(up), starting_(starting) {}
  std::string name() const override { return name_; }
  core::component_health check() const override {
    core::component_health h;
    h.up = up_;
    h.starting = starting_;
    return h;
  }

 private:
  std::string name_;
  bool up_, starting_;
};

nlohmann::json body_of(const http_response& r) {
  return nlohmann::json::parse(r.body);
}

TEST(HealthProbes, AStartingServerMakesHealthAndReadinessSayStarting) {
  services svc{core::real_clock()};
  svc.health.push_back(std::make_shared<state_health>("docker", true, false));
  svc.health.push_back(std::make_shared<state_health>("mcp.fs", false, true));
  auto health = run_dispatch(make_api_router(), svc, get("/health"));
  EXPECT_EQ(health.status, 503u);
  EXPECT_EQ(body_of(health)["status"], "starting");
  EXPECT_EQ(body_of(health)["components"]["mcp.fs"]["status"], "starting");
  auto ready = run_dispatch(make_api_router(), svc, get("/health/ready"));
  EXPECT_EQ(ready.status, 503u);
  EXPECT_EQ(body_of(ready), (nlohmann::json{{"status", "starting"}, {"notReady", {"mcp.fs"}}}));
  auto live = run_dispatch(make_api_router(), svc, get("/health/live"));
  EXPECT_EQ(live.status, 200u);
  EXPECT_EQ(body_of(live)["status"], "alive");
}

// A remote MCP server waiting for a person to authorize it, as the supervisor reports it.
class pending_oauth_health final : public core::health_source {
 public:
  std::string name() const override { return "mcp.notes"; }
  core::component_health check() const override {
    core::component_health h;
    h.up = false;
    h.required = false;
    h.detail = {
        {"state", "needs_authorization"},
        {"oauth", {{"state", "needs_authorization"}, {"authorizationUrl", "https://as.example/authorize?s=1"}}}};
    return h;
  }
};

class not_configured_health final : public core::health_source {
 public:
  std::string name() const override { return "llm"; }
  core::component_health check() const override {
    core::component_health h;
    h.configured = false;
    h.required = false;
    h.detail = {{"reason", "no LLM is configured: set LLM_API_KEY"}};
    return h;
  }
};

TEST(HealthProbes, AnAuthorizationUrlIsShownToAnAdminKeyOnly) {
  services svc{core::real_clock()};
  svc.health.push_back(std::make_shared<pending_oauth_health>());
  // Open: the details, but the URL only as where to find it (whoever completes it picks the account).
  auto open = body_of(run_dispatch(make_api_router(), svc, get("/health")));
  const auto& shown = open["components"]["mcp.notes"]["oauth"]["authorizationUrl"];
  EXPECT_EQ(shown.get<std::string>().find("https://"), std::string::npos) << shown;
  EXPECT_NE(shown.get<std::string>().find("in the server's log"), std::string::npos);
  EXPECT_EQ(open["components"]["mcp.notes"]["state"], "needs_authorization");

  const auto admin_key = auth::generate_api_key().value();
  const auto user_key = auth::generate_api_key().value();
  auth::key_set keys{
      {auth::key_record{"key_admin", "ops", {}, true, "2026-12-01T00:00:00Z", auth::digest_of(admin_key)},
       auth::key_record{"key_user", "app", {"alice"}, false, "2026-12-01T00:00:00Z", auth::digest_of(user_key)}}};
  access_gate::options options;
  options.keys = auth::create_memory_key_store(keys);
  svc.access = std::make_shared<access_gate>(options);
  auto with_key = [&](const std::string& key) {
    auto request = get("/health");
    request.headers = {{"Authorization", "Bearer " + key}};
    return body_of(run_dispatch(make_api_router(), svc, request));
  };
  EXPECT_EQ(with_key(admin_key)["components"]["mcp.notes"]["oauth"]["authorizationUrl"],
            "https://as.example/authorize?s=1");
  // A user key sees each component's status only.
  EXPECT_EQ(with_key(user_key)["components"]["mcp.notes"], (nlohmann::json{{"status", "down"}, {"required", false}}));
}

TEST(HealthProbes, AnOptionalPartNotSetUpIsNotConfiguredAndNoFault) {
  services svc{core::real_clock()};
  svc.health.push_back(std::make_shared<state_health>("docker", true, false));
  svc.health.push_back(std::make_shared<not_configured_health>());
  auto health = run_dispatch(make_api_router(), svc, get("/health"));
  EXPECT_EQ(health.status, 200u);
  EXPECT_EQ(body_of(health)["status"], "ok");
  EXPECT_EQ(body_of(health)["components"]["llm"]["status"], "not_configured");
  EXPECT_EQ(run_dispatch(make_api_router(), svc, get("/health/ready")).status, 200u);
}

TEST(HealthProbes, ADownComponentOutranksAStartingOne) {
  services svc{core::real_clock()};
  svc.health.push_back(std::make_shared<state_health>("docker", false, false));
  svc.health.push_back(std::make_shared<state_health>("mcp.fs", false, true));
  auto ready = run_dispatch(make_api_router(), svc, get("/health/ready"));
  EXPECT_EQ(ready.status, 503u);
  EXPECT_EQ(body_of(ready)["status"], "degraded");
  EXPECT_EQ(body_of(ready)["notReady"], (nlohmann::json{"docker", "mcp.fs"}));
}

TEST(HealthProbes, ReadyWhenEveryRequiredComponentIsUp) {
  services svc{core::real_clock()};
  svc.health.push_back(std::make_shared<state_health>("docker", true, false));
  auto ready = run_dispatch(make_api_router(), svc, get("/health/ready"));
  EXPECT_EQ(ready.status, 200u);
  EXPECT_EQ(body_of(ready), (nlohmann::json{{"status", "ready"}}));
}

}  // namespace
}  // namespace harness::http
