#include "harness/sandbox/sandbox_health.hpp"

#include "harness/sandbox/runtime_check.hpp"

namespace harness::sandbox {
namespace {

// Before the engine answered GET /info: the configured name, registration unknown.
nlohmann::json unknown_runtime(const std::string& configured) {
  return {{"name", configured.empty() ? "engine default" : configured}, {"registered", nullptr}};
}

}  // namespace

sandbox_health::sandbox_health(std::shared_ptr<docker::engine_client> engine, std::string image, std::string runtime)
    : engine_(std::move(engine)), image_(std::move(image)), runtime_(std::move(runtime)) {
  cached_.up = false;
  cached_.detail = {{"engine", {{"reachable", false}, {"endpoint", engine_->endpoint().describe()}}},
                    {"image", {{"name", image_}, {"present", false}}},
                    {"runtime", unknown_runtime(runtime_)},
                    {"reason", "not checked yet"}};
}

core::component_health sandbox_health::check() const {
  std::lock_guard lock(mutex_);
  return cached_;
}

boost::asio::awaitable<void> sandbox_health::refresh() {
  core::component_health next;
  nlohmann::json engine = {{"endpoint", engine_->endpoint().describe()}};
  nlohmann::json image = {{"name", image_}};
  auto version = co_await engine_->version();
  if (version) {
    engine["reachable"] = true;
    engine["version"] = version->version;
    engine["api_version"] = version->negotiated_api_version;
    auto info = co_await engine_->inspect_image(image_);
    image["present"] = info.has_value();
    if (info) {
      image["id"] = info->id;
    } else {
      next.detail["reason"] = info.error().describe();
    }
    next.up = info.has_value();
    auto runtime = co_await inspect_runtime(*engine_, runtime_);
    if (runtime) {
      next.detail["runtime"] = runtime->detail;
      if (!runtime->registered) {
        next.up = false;
        next.detail["reason"] = runtime_missing(*runtime).describe();
      }
    } else {
      next.detail["runtime"] = unknown_runtime(runtime_);
    }
  } else {
    engine["reachable"] = false;
    image["present"] = nullptr;  // unknown
    next.detail["runtime"] = unknown_runtime(runtime_);
    next.detail["reason"] = version.error().describe();
    next.up = false;
  }
  next.detail["engine"] = engine;
  next.detail["image"] = image;
  std::lock_guard lock(mutex_);
  cached_ = std::move(next);
}

void sandbox_health::start_refreshing(const boost::asio::any_io_executor& executor, core::clock& clock,
                                      std::chrono::milliseconds interval) {
  refresher_ = std::make_unique<core::periodic_job>(executor, clock, "sandbox health checks");
  refresher_->start(
      interval, [this] { return refresh(); }, core::periodic_job::first_tick::at_once);
}

void sandbox_health::stop_refreshing() {
  if (refresher_) refresher_->stop();
}

}  // namespace harness::sandbox
