#include "agent_setup.hpp"

#include "harness/pii/pii_vault.hpp"
#include "harness/pii/vault_seal.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/core/clock.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/llm/http_transport.hpp"
#include "harness/llm/provider.hpp"
#include "harness/store/store_config.hpp"
#include "harness/store/store_health.hpp"

namespace harness::app {

std::string missing_llm_setting(const llm::llm_config& config, const core::settings& settings) {
  if (config.provider == "replay") return {};
  if (!config.api_key.empty() || settings.is_set_explicitly("LLM_BASE_URL")) return {};
  return "no LLM is configured: set LLM_API_KEY (or LLM_BASE_URL for a local server that needs no key, or "
         "LLM_PROVIDER=replay with LLM_REPLAY_FILE); /execute, /mcp and stored tasks work without one";
}

std::function<void()> start_retention(const boost::asio::any_io_executor& executor,
                                      std::shared_ptr<store::task_store> store, const store::store_config& config) {
  namespace asio = boost::asio;
  if (config.retention.count() == 0 && config.vault_retention.count() == 0) return {};
  auto timer = std::make_shared<asio::steady_timer>(executor);
  // Vaults are checked more often when their retention is short.
  const auto every = std::clamp<std::chrono::minutes>(
      config.vault_retention.count() ? config.vault_retention / 4 : std::chrono::minutes(60), std::chrono::minutes(1),
      std::chrono::minutes(60));
  auto loop = [timer, store, config, every]() -> asio::awaitable<void> {
    for (;;) {
      auto now = core::real_clock().epoch_ms();
      if (auto cutoff = store::retention_cutoff_ms(config, now)) {
        auto removed = co_await store->delete_finished_before(*cutoff);
        if (!removed) core::log_warn("task retention failed: {}", removed.error().describe());
        if (removed && *removed > 0) core::log_info("task retention removed {} finished task(s)", *removed);
      }
      if (config.vault_retention.count() > 0) {
        const auto keep = std::chrono::duration_cast<std::chrono::milliseconds>(config.vault_retention).count();
        nlohmann::json empty = pii::pii_vault().to_json();  // a local: GCC 12
        auto emptied = co_await store->forget_vaults_before(now - keep, std::move(empty));
        if (!emptied) core::log_warn("vault retention failed: {}", emptied.error().describe());
        if (emptied && *emptied > 0) core::log_info("vault retention emptied {} conversation vault(s)", *emptied);
      }
      timer->expires_after(every);
      auto [ec] = co_await timer->async_wait(asio::as_tuple(asio::use_awaitable));
      if (ec) co_return;
    }
  };
  core::spawn_logged(executor, std::move(loop), "task retention");
  return [timer] { timer->cancel(); };
}

result<std::shared_ptr<store::task_store>> open_task_store(const store::store_config& config,
                                                           const std::string& owner) {
  auto backend = store::open_blocking_store(config);
  if (!backend) return backend.error();
  // A shared store: only this replica's own tasks now; others' lapsed leases
  // are the replica upkeep's, which gives them time to renew first.
  const std::int64_t lapsed_before = (*backend)->shared() ? 0 : core::real_clock().epoch_ms();
  auto interrupted = (*backend)->mark_interrupted(lapsed_before, owner);
  if (!interrupted) {
    core::log_warn("could not mark tasks of an earlier run as interrupted: {}", interrupted.error().describe());
  } else if (!interrupted->empty()) {
    core::log_info("{} task(s) of an earlier run were marked interrupted", interrupted->size());
  }
  return store::run_on_store_thread(std::move(*backend));
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
    transport = llm::create_net_transport(inputs.http_engine, options);
  }
  auto provider = llm::create_llm_provider(llm_config, transport);
  if (!provider) return provider.error();
  if (inputs.metrics) *provider = llm::create_metered_provider(*provider, inputs.metrics);
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
                            : open_task_store(*store_config, settings.get("SANDBOX_OWNER"));
  if (!store) return store.error();
  // Conversation vaults hold every raw value a user's tools returned: sealed at rest.
  auto sealer = pii::load_vault_sealer(settings);
  if (!sealer) return sealer.error();
  if (!inputs.store) out.health.push_back(store::store_health(*store));  // else the app reports it
  out.stop_retention = start_retention(executor, *store, *store_config);

  agent::agent_dependencies deps;
  deps.llm = std::move(provider);
  deps.pool = std::move(inputs.pool);
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
  deps.servers = [registry = inputs.registry] {
    std::vector<std::string> names;
    for (const auto& tool : registry->list("")) names.push_back(tool.value("name", std::string()));
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
