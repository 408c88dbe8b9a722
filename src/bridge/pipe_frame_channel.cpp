#include "pipe_frame_channel.hpp"

#include <unistd.h>

#include <array>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "harness/bridge/errors.hpp"
#include "harness/bridge/frame_lines.hpp"

namespace harness::bridge {
namespace {

namespace asio = boost::asio;
constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

class pipe_frame_channel final : public frame_channel {
 public:
  pipe_frame_channel(const asio::any_io_executor& executor, int read_fd, int write_fd, std::size_t max_line)
      : in_(executor, read_fd), out_(executor, write_fd), lines_(max_line) {}

  asio::awaitable<result<std::string>> read_line() override {
    for (;;) {
      if (cancelled_) co_return make_error(core::errc::cancelled, "the channel was cancelled");
      if (auto line = lines_.next()) co_return std::move(*line);
      auto [ec, n] = co_await in_.async_read_some(asio::buffer(chunk_), use_tuple);
      if (cancelled_) co_return make_error(core::errc::cancelled, "the channel was cancelled");
      if (ec) co_return make_error(bridge::errc::channel_closed, "the runtime's output ended (" + ec.message() + ")");
      lines_.append(std::string_view(chunk_.data(), n));
    }
  }

  asio::awaitable<status> write_line(std::string line) override {
    if (cancelled_) co_return make_error(core::errc::cancelled, "the channel was cancelled");
    line.push_back('\n');
    auto [ec, n] = co_await asio::async_write(out_, asio::buffer(line), use_tuple);
    if (ec) co_return make_error(bridge::errc::channel_closed, "the runtime's input is closed (" + ec.message() + ")");
    co_return status{};
  }

  void cancel() override {
    cancelled_ = true;
    boost::system::error_code ignored;
    in_.cancel(ignored);
    out_.cancel(ignored);
  }

 private:
  asio::posix::stream_descriptor in_;
  asio::posix::stream_descriptor out_;
  frame_lines lines_;
  // Here, not in read_line's frame: a frame is allocated per call, one per
  // frame the sandbox sends.
  std::array<char, 65536> chunk_{};
  bool cancelled_ = false;
};

}  // namespace

std::unique_ptr<frame_channel> create_pipe_frame_channel(const asio::any_io_executor& executor, int read_fd,
                                                         int write_fd, std::size_t max_line) {
  return std::make_unique<pipe_frame_channel>(executor, read_fd, write_fd, max_line);
}

std::unique_ptr<frame_channel> create_socket_frame_channel(const asio::any_io_executor& executor, int fd,
                                                           std::size_t max_line) {
  // Two descriptors of one socket, so reads and writes are separate objects
  // as they are for pipes.
  int write_fd = ::dup(fd);
  if (write_fd < 0) {
    ::close(fd);
    return nullptr;
  }
  return std::make_unique<pipe_frame_channel>(executor, fd, write_fd, max_line);
}

}  // namespace harness::bridge
