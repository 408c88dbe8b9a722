// Assembles the agent: the LLM provider over libcurl, the SQLite task store
// and the AgentManager on the data path the /execute sessions use too. Without
// an LLM configured there is no agent, and POST /task says which setting is missing.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/thread_pool.hpp>

#include "harness/agent/agent_manager.hpp"
#include "harness/core/health.hpp"
#include "harness/core/settings.hpp"
#include "harness/execution/warm_pool.hpp"
#include "harness/llm/config.hpp"
#include "harness/mcp/tool_registry.hpp"
#include "harness/store/store_config.hpp"

namespace harness::net {
class curl_loop;
}

namespace harness::app {

struct agent_inputs {
  std::shared_ptr<execution::warm_pool> pool;
  std::shared_ptr<execution::warm_pool> python_pool;  // for Python tasks
  std::shared_ptr<bridge::tool_gateway> tools;
  std::shared_ptr<mcp::tool_registry> registry;
  std::shared_ptr<const pii::pii_censor> censor;
  std::shared_ptr<execution::sandbox_files> files;
  std::chrono::milliseconds exec_timeout{30000};
  bridge::session_limits limits;
  std::shared_ptr<core::metrics_registry> metrics;
  std::shared_ptr<const execution::pii_filter_factory> filters;  // each task's data filter (censor, tool policy)
  std::chrono::milliseconds approval_timeout{300000};            // APPROVAL_TIMEOUT_MS
  std::shared_ptr<net::curl_loop> curl_loop;                     // the one outbound HTTP client's loop
  // The store, when the app opened it already (replicas sharing STORE_URL:
  // sessions need it too); null: build_agent opens it.
  std::shared_ptr<store::task_store> store = nullptr;
};

struct agent_parts {
  // Serves stored tasks always; starts new ones only with an LLM.
  std::shared_ptr<agent::agent_manager> manager;
  std::string unavailable;  // why new tasks cannot start (no LLM); empty when they can
  core::health_sources health;
  std::function<void()> stop_retention;  // empty when there is none
};

// Empty when an LLM is configured; else the message POST /task answers with.
std::string missing_llm_setting(const llm::llm_config& config, const core::settings& settings);

// harness_tasks_total{status} (a zero series per terminal status) and the
// harness_tasks_running / harness_tasks_queued gauges read from `manager`
// (0 without one), so /metrics lists them from the first scrape.
void register_task_metrics(core::metrics_registry& metrics, const std::shared_ptr<agent::agent_manager>& manager);

// Fails on an invalid setting or a store that cannot be opened.
result<agent_parts> build_agent(const boost::asio::any_io_executor& executor, boost::asio::thread_pool& background,
                                const core::settings& settings, const llm::llm_config& llm_config, agent_inputs inputs);

}  // namespace harness::app
