// Health reporting. Each component that GET /health should show implements
// health_source; the HTTP layer asks every registered source on each probe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace harness::core {

struct component_health {
  bool up = true;
  // A required component that is down makes /health answer 503 "degraded".
  bool required = true;
  // Free-form details shown under components.<name> (version, id, reason...).
  // Never secrets: /health is unauthenticated.
  nlohmann::json detail = nlohmann::json::object();
  // Still coming up for the first time (an MCP server starting): /health
  // answers 503 "starting" while a required component is.
  bool starting = false;
  // An optional part the operator has not set up (no LLM): /health shows
  // "not_configured" for it, whatever `up` says, and it never makes the
  // server degraded. `detail` should name the setting that turns it on.
  bool configured = true;
};

class health_source {
 public:
  virtual ~health_source() = default;
  // Key under "components" in the /health body, e.g. "docker", "mcp.fs".
  virtual std::string name() const = 0;
  // Called on the I/O thread for every probe: must not block or do I/O. A
  // source that needs I/O to know its state refreshes a cached value elsewhere.
  virtual component_health check() const = 0;
};

using health_sources = std::vector<std::shared_ptr<const health_source>>;

}  // namespace harness::core
