#include "components.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "harness/core/logging.hpp"
#include "harness/docker/engine_client.hpp"
#include "harness/execution/execution_service.hpp"
#include "harness/execution/execution_settings.hpp"
#include "harness/http/http_settings.hpp"
#include "harness/sandbox/sandbox.hpp"
#include "harness/sandbox/sandbox_health.hpp"
#include "no_tools.hpp"

namespace harness::app {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

class components_impl final : public components {
 public:
  http::services& services() override { return services_; }

  asio::awaitable<void> shutdown() override {
    if (execution_) co_await execution_->shutdown();
    if (pool_) co_await pool_->shutdown();
    if (backend_) co_await backend_->shutdown();
  }

  http::services services_;
  std::shared_ptr<docker::engine_client> engine_;
  std::shared_ptr<sandbox::sandbox_backend> backend_;
  std::shared_ptr<sandbox::sandbox_health> sandbox_health_;
  std::shared_ptr<execution::warm_pool> pool_;
  std::shared_ptr<execution::execution_service> execution_;
};

// Removes containers a crashed earlier run left behind, then starts filling the pool.
asio::awaitable<void> start_sandboxes(std::shared_ptr<sandbox::sandbox_backend> backend,
                                      std::shared_ptr<execution::warm_pool> pool) {
  auto swept = co_await backend->sweep(nullptr);
  if (swept && *swept > 0) core::log_info("removed {} sandbox container(s) left by an earlier run", *swept);
  if (!swept) core::log_warn("could not sweep old sandbox containers: {}", swept.error().describe());
  pool->start();
}

}  // namespace

result<std::unique_ptr<components>> build_components(asio::io_context& io, const core::settings& settings) {
  auto out = std::make_unique<components_impl>();
  auto http_config = http::load_http_config(settings);
  if (!http_config) return http_config.error();
  out->services_.limits = http_config->limits;

  auto docker_config = docker::load_docker_config(settings);
  if (!docker_config) return docker_config.error();
  auto sandbox_config = sandbox::load_sandbox_config(settings);
  if (!sandbox_config) return sandbox_config.error();
  auto exec_settings = execution::load_execution_settings(settings, sandbox_config->timeout);
  if (!exec_settings) return exec_settings.error();
  out->services_.limits.code_max_chars = static_cast<std::size_t>(sandbox_config->max_code_bytes);

  auto executor = io.get_executor();
  out->engine_ = docker::create_engine_client(executor, *docker_config);
  out->backend_ = sandbox::create_docker_sandbox(executor, out->engine_, *sandbox_config);
  out->sandbox_health_ = std::make_shared<sandbox::sandbox_health>(out->engine_, sandbox_config->image);
  out->pool_ = execution::create_warm_pool(executor, out->backend_, exec_settings->pool);
  out->execution_ = execution::create_execution_service(executor, out->pool_, std::make_shared<no_tools>(), nullptr,
                                                        exec_settings->service);
  out->services_.execution = out->execution_;
  out->services_.health.push_back(out->sandbox_health_);
  out->services_.health.push_back(execution::pool_health(out->pool_));

  asio::co_spawn(io, out->sandbox_health_->refresh_every(10s), asio::detached);
  asio::co_spawn(io, start_sandboxes(out->backend_, out->pool_), asio::detached);
  return std::unique_ptr<components>(std::move(out));
}

}  // namespace harness::app
