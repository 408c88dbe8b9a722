// An in-memory frame_channel whose far end is a scripted "runtime": each line
// the host writes is handed to `respond`, which pushes the lines the runtime
// would answer with. Lines can also be pushed at any time. As on a real
// stream, one write may carry several lines (newline-separated): each is a
// frame of its own in `written` and for `respond`; `writes` counts the writes.
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
  std::size_t writes = 0;
  // Each write takes a turn of the executor before it completes, as a real
  // one that is not done at once: lines sent meanwhile queue behind it.
  bool slow_writes = false;
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

  boost::asio::awaitable<status> write_line(std::string text) override {
    if (cancelled_ || closed_) co_return make_error(harness::bridge::errc::channel_closed, "closed");
    if (slow_writes) {
      boost::asio::steady_timer turn(wake_.get_executor(), std::chrono::steady_clock::duration::zero());
      co_await turn.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    }
    ++writes;
    std::size_t start = 0;
    for (;;) {
      const std::size_t end = text.find('\n', start);
      std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
      written.push_back(line);
      if (respond) respond(line);
      if (end == std::string::npos) break;
      start = end + 1;
    }
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
