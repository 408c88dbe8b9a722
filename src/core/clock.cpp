#include "harness/core/clock.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace harness::core {
namespace {

namespace asio = boost::asio;

class steady_timer_adapter final : public timer {
 public:
  explicit steady_timer_adapter(const asio::any_io_executor& executor) : timer_(executor) {}

  void expires_at(steady_time at) override { timer_.expires_at(at); }
  void cancel() override { timer_.cancel(); }
  asio::awaitable<bool> wait() override {
    auto [ec] = co_await timer_.async_wait(asio::as_tuple(asio::use_awaitable));
    co_return !ec;
  }
  void async_wait(std::function<void(bool)> handler) override {
    timer_.async_wait([handler = std::move(handler)](boost::system::error_code ec) { handler(!ec); });
  }

 private:
  asio::steady_timer timer_;
};

class std_clock final : public clock {
 public:
  steady_time steady_now() const override { return std::chrono::steady_clock::now(); }
  system_time system_now() const override { return std::chrono::system_clock::now(); }
  std::unique_ptr<timer> make_timer(const asio::any_io_executor& executor) override {
    return std::make_unique<steady_timer_adapter>(executor);
  }
};

}  // namespace

clock& real_clock() {
  static std_clock instance;
  return instance;
}

}  // namespace harness::core
