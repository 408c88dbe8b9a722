// The sandbox_container handle the Docker backend hands out (internal).
#pragma once

#include <memory>
#include <string>

#include "harness/sandbox/sandbox.hpp"

namespace harness::sandbox::detail {

// What a container handle needs from its backend: removal now, or in the
// background when the handle dies without stop().
class container_owner {
 public:
  virtual ~container_owner() = default;
  virtual task<status> remove(std::string id) = 0;
  virtual void remove_later(std::string id) = 0;
};

class container_session final : public sandbox_container {
 public:
  container_session(std::shared_ptr<container_owner> owner, std::string id, std::string task_id,
                    std::unique_ptr<docker::attach_stream> stream)
      : owner_(std::move(owner)), id_(std::move(id)), task_id_(std::move(task_id)), stream_(std::move(stream)) {}

  ~container_session() override {
    if (!stopped_) {
      stream_->close();
      owner_->remove_later(id_);
    }
  }

  const std::string& id() const override { return id_; }
  const std::string& task_id() const override { return task_id_; }
  docker::attach_stream& stream() override { return *stream_; }

  task<status> stop() override {
    if (stopped_) co_return status{};
    stopped_ = true;
    stream_->close();
    co_return co_await owner_->remove(id_);
  }

 private:
  std::shared_ptr<container_owner> owner_;
  std::string id_, task_id_;
  std::unique_ptr<docker::attach_stream> stream_;
  bool stopped_ = false;
};

}  // namespace harness::sandbox::detail
