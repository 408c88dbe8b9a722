// GET /health for the sandbox: is the engine reachable (and which version), is
// the image present (and its id), which runtime runs the sandboxes (runc,
// gVisor's runsc) and is it registered with the engine. check() returns the state cached by the last
// refresh(); the app calls refresh() at start-up and then every few seconds.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>

#include <boost/asio/awaitable.hpp>

#include "harness/core/health.hpp"
#include "harness/core/periodic_job.hpp"
#include "harness/docker/engine_client.hpp"

namespace harness::sandbox {

class sandbox_health final : public core::health_source {
 public:
  // runtime: SANDBOX_RUNTIME ("" = the engine's default).
  sandbox_health(std::shared_ptr<docker::engine_client> engine, std::string image, std::string runtime);

  std::string name() const override { return "sandbox"; }
  // Down (required) until the first refresh() found the engine and the image.
  core::component_health check() const override;

  // Asks the engine (version, image inspect) and updates the cached state.
  boost::asio::awaitable<void> refresh();
  // refresh() now and then every `interval` (on `clock`) until stop_refreshing().
  void start_refreshing(const boost::asio::any_io_executor& executor, core::clock& clock,
                        std::chrono::milliseconds interval);
  void stop_refreshing();

 private:
  std::shared_ptr<docker::engine_client> engine_;
  std::string image_;
  std::string runtime_;
  mutable std::mutex mutex_;
  core::component_health cached_;
  std::unique_ptr<core::periodic_job> refresher_;
};

}  // namespace harness::sandbox
