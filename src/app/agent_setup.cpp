#include "agent_setup.hpp"

#include "harness/pii/pii_vault.hpp"
#include "harness/pii/vault_seal.hpp"

#include "harness/core/clock.hpp"
#include "harness/core/logging.hpp"
#include "harness/llm/http_transport.hpp"
#include "harness/llm/provider.hpp"
#include "harness/store/replica_upkeep.hpp"
#include "harness/store/retention.hpp"
#include "harness/store/store_config.hpp"
#include "harness/store/store_health.hpp"

namespace harness::app {

std::string missing_llm_setting(const llm::llm_config& config, const core::settings& settings) {
  if (config.provider == "replay") return {};
  if (!config.api_key.empty() || settings.is_set_explicitly("LLM_BASE_URL")) return {};
  return "no LLM is configured: set LLM_API_KEY (or LLM_BASE_URL for a local server that needs no key, or "
         "LLM_PROVIDER=replay with LLM_REPLAY_FILE); /execute, /mcp and stored tasks work without one";
}

void register_task_metrics(core::metrics_registry& metrics, const std::shared_ptr<agent::agent_manager>& manager) {
  for (auto status : store::all_task_statuses) {
    if (store::is_terminal(status)) core::task_counter(metrics).with({to_string(status)});
  }
  // Read at scrape time, on the I/O thread like the manager itself; the weak
  // pointer keeps a scrape after shutdown from touching a destroyed manager.
  // Without a manager (no LLM) both read 0.
  auto gauge = [weak = std::weak_ptr<agent::agent_manager>(manager)](bool running) {
    return [weak, running] {
      auto m = weak.lock();
      double value = 0;
      if (m) value = double(running ? m->stats().running : m->stats().queued);
      return std::vector<core::sample>{{{}, value}};
    };
  };
  metrics.add_callback("harness_tasks_running", "Agent tasks running now.", core::metric_type::gauge, {}, gauge(true));
  metrics.add_callback("harness_tasks_queued", "Agent tasks waiting for a slot.", core::metric_type::gauge, {},
                       gauge(false));
}

namespace {

result<std::shared_ptr<llm::llm_provider>> make_provider(const llm::llm_config& llm_config,
                                                         const agent_inputs& inputs) {
  std::shared_ptr<llm::http_transport> transport;
  if (llm_config.provider != "replay") {
    llm::net_transport_options options;
    options.max_concurrent = llm_config.max_concurrent;
    options.proxy = llm_config.proxy;
    transport = llm::create_net_transport(inputs.curl_loop, options);
  }
  auto provider = llm::create_llm_provider(core::real_clock(), llm_config, transport);
  if (!provider) return provider.error();
  if (inputs.metrics) *provider = llm::create_metered_provider(core::real_clock(), *provider, inputs.metrics);
  return std::move(*provider);
}

}  // namespace

result<agent_parts> build_agent(const boost::asio::any_io_executor& executor, boost::asio::thread_pool& background,
                                const core::settings& settings, const llm::llm_config& llm_config,
                                agent_inputs inputs) {
  agent_parts out;
  auto config = agent::load_agent_config(settings, inputs.exec_timeout, inputs.limits);
  if (!config) return config.error();
  config->approval_timeout = inputs.approval_timeout;
  config->owner = settings.get("SANDBOX_OWNER");
  auto store_config = store::load_store_config(settings);
  if (!store_config) return store_config.error();
  out.unavailable = missing_llm_setting(llm_config, settings);
  if (inputs.metrics) llm::register_llm_metrics(*inputs.metrics, llm_config.provider);
  // Without an LLM the manager still serves the stored tasks (list, detail,
  // events, files, cancel); only starting or continuing one needs a provider.
  std::shared_ptr<llm::llm_provider> provider;
  if (out.unavailable.empty()) {
    auto made = make_provider(llm_config, inputs);
    if (!made) return made.error();
    provider = std::move(*made);
  }
  auto store = inputs.store ? result<std::shared_ptr<store::task_store>>(inputs.store)
                            : store::open_task_store(*store_config, settings.get("SANDBOX_OWNER"));
  if (!store) return store.error();
  // Conversation vaults hold every raw value a user's tools returned: sealed at rest.
  auto sealer = pii::load_vault_sealer(settings);
  if (!sealer) return sealer.error();
  if (!inputs.store) out.health.push_back(store::store_health(*store));  // else the app reports it
  out.stop_retention =
      store::start_retention(executor, core::real_clock(), *store, *store_config, pii::pii_vault().to_json());

  agent::agent_dependencies deps;
  deps.llm = std::move(provider);
  deps.pool = std::move(inputs.pool);
  deps.python_pool = std::move(inputs.python_pool);
  deps.tools = std::move(inputs.tools);
  deps.censor = std::move(inputs.censor);
  deps.filters = std::move(inputs.filters);
  deps.sealer = std::make_shared<const pii::vault_sealer>(std::move(*sealer));
  deps.store = *store;
  deps.files = std::move(inputs.files);
  deps.blocking = background.get_executor();
  deps.metrics = inputs.metrics;
  if (inputs.metrics) {
    deps.on_task_end = [tasks = &core::task_counter(*inputs.metrics)](store::task_status status) {
      tasks->with({to_string(status)}).inc();
    };
  }
  deps.servers = [registry = inputs.registry](const std::string& user_id) {
    std::vector<std::string> names;
    for (const auto& tool : registry->list_for(user_id, "")) names.push_back(tool.value("name", std::string()));
    return agent::server_names(names);
  };
  out.manager = agent::create_agent_manager(executor, std::move(deps), *config, core::real_clock());
  if (inputs.metrics) register_task_metrics(*inputs.metrics, out.manager);
  // Without an LLM, /health's "not_configured" says so: a start-up line would only repeat it.
  if (out.unavailable.empty()) {
    core::log_info("agent ready: {} provider, store {}", llm_config.provider, store::describe_store(*store_config));
  }
  return out;
}

}  // namespace harness::app
