// An in-memory frame_channel whose far end is a scripted "runtime": each line
// the host writes is handed to `respond`, which pushes the lines the runtime
// would answer with. Lines can also be pushed at any time.
#pragma once

#include <deque>
#include <functional>
#include <string>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/bridge/errors.hpp"
#include "harness/bridge/frame_channel.hpp"

namespace harness::bridge::testing {

class fake_channel final : public frame_channel {
 public:
  explicit fake_channel(boost::asio::any_io_executor executor) : wake_(executor) {}

  std::function<void(const std::string& written)> respond;
  std::vector<std::string> written;
  // Longer incoming lines fail as frame_too_large, as the real channel's cap does.
  std::size_t max_line = 1024;

  void push(std::string line) {
    incoming_.push_back(std::move(line));
    wake_.cancel();
  }
  void close() {
    closed_ = true;
    wake_.cancel();
  }

  boost::asio::awaitable<result<std::string>> read_line() override {
    for (;;) {
      if (cancelled_) co_return make_error(harness::core::errc::cancelled, "cancelled");
      if (!incoming_.empty()) {
        std::string line = std::move(incoming_.front());
        incoming_.pop_front();
        if (line.size() > max_line)
          co_return make_error(harness::bridge::errc::frame_too_large,
                               "line over " + std::to_string(max_line) + " bytes");
        co_return line;
      }
      if (closed_) co_return make_error(harness::bridge::errc::channel_closed, "the runtime's output ended");
      wake_.expires_at(std::chrono::steady_clock::time_point::max());
      co_await wake_.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    }
  }

  boost::asio::awaitable<status> write_line(std::string line) override {
    if (cancelled_ || closed_) co_return make_error(harness::bridge::errc::channel_closed, "closed");
    written.push_back(line);
    if (respond) respond(line);
    co_return status{};
  }

  void cancel() override {
    cancelled_ = true;
    wake_.cancel();
  }

 private:
  std::deque<std::string> incoming_;
  boost::asio::steady_timer wake_;
  bool closed_ = false;
  bool cancelled_ = false;
};

}  // namespace harness::bridge::testing
