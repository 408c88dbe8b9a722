#include "harness/store/store_health.hpp"

namespace harness::store {
namespace {

class store_health_source final : public core::health_source {
 public:
  explicit store_health_source(std::shared_ptr<task_store> store) : store_(std::move(store)) {}

  std::string name() const override { return "store"; }

  core::component_health check() const override {
    auto h = store_->health();
    h.required = true;  // tasks cannot be accepted without their store
    return h;
  }

 private:
  std::shared_ptr<task_store> store_;
};

}  // namespace

std::shared_ptr<const core::health_source> store_health(std::shared_ptr<task_store> store) {
  return std::make_shared<store_health_source>(std::move(store));
}

}  // namespace harness::store
