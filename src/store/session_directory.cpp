#include "harness/store/session_directory.hpp"

#include "harness/core/clock.hpp"
#include "harness/core/logging.hpp"
#include "harness/store/task_store.hpp"

namespace harness::store {
namespace {

namespace asio = boost::asio;

class session_directory_impl final : public session_directory {
 public:
  session_directory_impl(std::shared_ptr<task_store> store, std::string owner, std::chrono::milliseconds lease)
      : store_(std::move(store)), owner_(std::move(owner)), lease_(lease) {}

  const std::string& self() const override { return owner_; }

  asio::awaitable<result<std::string>> hold(std::string key) override {
    const auto now = core::real_clock().epoch_ms();
    co_return co_await store_->hold_session(std::move(key), owner_, now, now + lease_.count());
  }

  asio::awaitable<void> release(std::string key) override {
    auto released = co_await store_->release_session(key, owner_);
    if (!released) core::log_warn("session {} not released: {}", key, released.error().describe());
  }

  asio::awaitable<result<std::string>> holder(std::string key) override {
    co_return co_await store_->session_holder(std::move(key), core::real_clock().epoch_ms());
  }

 private:
  std::shared_ptr<task_store> store_;
  std::string owner_;
  std::chrono::milliseconds lease_;
};

}  // namespace

std::shared_ptr<session_directory> create_session_directory(std::shared_ptr<task_store> store, std::string owner,
                                                            std::chrono::milliseconds lease) {
  return std::make_shared<session_directory_impl>(std::move(store), std::move(owner), lease);
}

}  // namespace harness::store
