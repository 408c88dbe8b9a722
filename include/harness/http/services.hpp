// What route handlers may use. The app fills it in at start-up; tests fill it
// with fakes. Pointers may be null when a component is not configured, and
// handlers answer 503 in that case.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "harness/core/clock.hpp"
#include "harness/core/health.hpp"
#include "harness/http/request_source.hpp"

namespace harness::core {
class metrics_registry;
}
namespace harness::telemetry {
class tracer;
}
namespace harness::agent {
class agent_manager;
}
namespace harness::execution {
class execution_service;
}
namespace harness::mcp {
class tool_registry;
class oauth_manager;
}  // namespace harness::mcp
namespace harness::mcp_server {
class mcp_face;
}
namespace harness::secrets {
class secret_store;
}
namespace harness::skills {
class skill_library;
class workspace_store;
}  // namespace harness::skills

namespace harness::http {

class access_gate;

struct request_limits {
  std::size_t task_max_chars = 100000;   // POST /task "task" field
  std::size_t code_max_chars = 1 << 20;  // POST /execute "code" field
};

// GET /health's last rendered answer, reused for a short while (see
// routes/health.cpp).
struct health_cache {
  std::mutex mutex;
  core::steady_time rendered_at{};
  unsigned status = 0;
  std::string body;       // with every component's details (admin keys)
  std::string open_body;  // the same without pending authorization URLs (a server running open)
  std::string summary;    // status, version, uptime, auth and each component's status only (everyone else)
};

struct services {
  // `clock` gives the uptime and the health cache's age; it must outlive this.
  explicit services(core::clock& c) : clock(c), started_at(c.steady_now()) {}

  core::clock& clock;
  core::health_sources health;
  std::shared_ptr<health_cache> health_answer = std::make_shared<health_cache>();
  core::steady_time started_at;
  request_limits limits;
  // Runs code for POST /execute; null when no sandbox backend is configured.
  std::shared_ptr<execution::execution_service> execution;
  // The MCP tool registry for GET /tools; null when none is configured.
  std::shared_ptr<mcp::tool_registry> tools;
  // OAuth of remote MCP servers, for GET /oauth/callback; null: none.
  std::shared_ptr<mcp::oauth_manager> oauth;
  // Serves /tasks (stored tasks) and runs POST /task; null when no store is
  // configured (tests of other parts).
  std::shared_ptr<agent::agent_manager> agent;
  // Why POST /task cannot start a task (no LLM: names the settings); empty
  // when it can. The other task routes do not need an LLM.
  std::string agent_unavailable;
  // Users' skills for /skills; null when not configured.
  std::shared_ptr<::harness::skills::skill_library> skills;
  // Users' secrets for /secrets; null when the server keeps no store.
  std::shared_ptr<::harness::secrets::secret_store> secrets;
  // Task workspaces for /tasks/{id}/files; null when not configured.
  std::shared_ptr<::harness::skills::workspace_store> workspaces;
  // Where routes run blocking file work (workspace listings and downloads),
  // so the I/O thread never waits on disk; null: inline (tests).
  boost::asio::any_io_executor blocking;
  // Counters and histograms for GET /metrics; the server records each request
  // in it. Null: no metrics (GET /metrics answers 503).
  std::shared_ptr<core::metrics_registry> metrics;
  // Records a server span for each request (and what it starts); null:
  // tracing off, a caller's traceparent is still passed on.
  std::shared_ptr<telemetry::tracer> tracer;
  // Who may call (API keys, rate limits); null: the server runs open and
  // every request has the open caller (AUTH=none, and tests of other parts).
  std::shared_ptr<access_gate> access;
  // Code mode as an MCP server at /mcp (Streamable HTTP); null: /mcp answers 503.
  std::shared_ptr<mcp_server::mcp_face> mcp;
  // Which Host and Origin headers may be served (HOST, ALLOWED_HOSTS,
  // MCP_ALLOWED_ORIGINS), against DNS rebinding; the app sets the port once
  // the server listens. The default answers every Host (tests of other parts).
  request_sources sources;
};

}  // namespace harness::http
