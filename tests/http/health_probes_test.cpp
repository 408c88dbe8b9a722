// /health while a component is still starting, and the Kubernetes probes
// /health/live and /health/ready, through the dispatcher without a socket.
#include <gtest/gtest.h>

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
  services svc;
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

TEST(HealthProbes, ADownComponentOutranksAStartingOne) {
  services svc;
  svc.health.push_back(std::make_shared<state_health>("docker", false, false));
  svc.health.push_back(std::make_shared<state_health>("mcp.fs", false, true));
  auto ready = run_dispatch(make_api_router(), svc, get("/health/ready"));
  EXPECT_EQ(ready.status, 503u);
  EXPECT_EQ(body_of(ready)["status"], "degraded");
  EXPECT_EQ(body_of(ready)["notReady"], (nlohmann::json{"docker", "mcp.fs"}));
}

TEST(HealthProbes, ReadyWhenEveryRequiredComponentIsUp) {
  services svc;
  svc.health.push_back(std::make_shared<state_health>("docker", true, false));
  auto ready = run_dispatch(make_api_router(), svc, get("/health/ready"));
  EXPECT_EQ(ready.status, 200u);
  EXPECT_EQ(body_of(ready), (nlohmann::json{{"status", "ready"}}));
}

}  // namespace
}  // namespace harness::http
