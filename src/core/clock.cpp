#include "harness/core/clock.hpp"

#include <ctime>

#include <fmt/format.h>
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

std::string iso_utc(std::int64_t epoch_ms) {
  const auto seconds = static_cast<std::time_t>(epoch_ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                     utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(epoch_ms % 1000));
}

}  // namespace harness::core
