#include "harness/sandbox/sandbox_health.hpp"

namespace harness::sandbox {

sandbox_health::sandbox_health(std::shared_ptr<docker::engine_client> engine, std::string image)
    : engine_(std::move(engine)), image_(std::move(image)) {
  cached_.up = false;
  cached_.detail = {{"engine", {{"reachable", false}, {"endpoint", engine_->endpoint().describe()}}},
                    {"image", {{"name", image_}, {"present", false}}},
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
  } else {
    engine["reachable"] = false;
    image["present"] = nullptr;  // unknown
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
