#include "attach_frame_channel.hpp"

#include "harness/bridge/errors.hpp"
#include "harness/bridge/frame_lines.hpp"
#include "harness/core/logging.hpp"
#include "harness/docker/errors.hpp"

namespace harness::execution {
namespace {

using namespace std::chrono_literals;
namespace asio = boost::asio;

// Reads have no deadline of their own: the session's deadline cancels them.
constexpr auto read_slice = std::chrono::hours(1);
constexpr auto write_timeout = 30s;
constexpr std::size_t stderr_log_cap = 64 * 1024;

class attach_frame_channel final : public bridge::frame_channel {
 public:
  attach_frame_channel(docker::attach_stream& stream, std::string label, std::size_t max_line)
      : stream_(stream), label_(std::move(label)), lines_(max_line) {}

  asio::awaitable<result<std::string>> read_line() override {
    for (;;) {
      if (cancelled_) co_return make_error(core::errc::cancelled, "the channel was cancelled");
      if (auto line = lines_.next()) co_return std::move(*line);
      auto chunk = co_await stream_.read(read_slice);
      if (cancelled_) co_return make_error(core::errc::cancelled, "the channel was cancelled");
      if (!chunk) {
        if (chunk.error().code == docker::errc::timeout) continue;
        co_return make_error(bridge::errc::channel_closed, chunk.error().message);
      }
      if (!*chunk) co_return make_error(bridge::errc::channel_closed, "the container's output ended");
      if ((*chunk)->stream == docker::output_stream::stderr_stream) {
        log_stderr((*chunk)->data);
      } else {
        lines_.append((*chunk)->data);
      }
    }
  }

  asio::awaitable<status> write_line(std::string line) override {
    if (cancelled_) co_return make_error(core::errc::cancelled, "the channel was cancelled");
    line.push_back('\n');
    auto written = co_await stream_.write_stdin(line, write_timeout);
    if (!written) co_return make_error(bridge::errc::channel_closed, written.error().message);
    co_return status{};
  }

  void cancel() override {
    cancelled_ = true;
    stream_.close();
  }

 private:
  void log_stderr(const std::string& data) {
    if (stderr_logged_ >= stderr_log_cap) return;
    stderr_logged_ += data.size();
    std::string text = data.substr(0, stderr_log_cap);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    core::log_debug("sandbox {} stderr: {}", label_, text);
    if (stderr_logged_ >= stderr_log_cap) core::log_warn("sandbox {} stderr: further output not logged", label_);
  }

  docker::attach_stream& stream_;
  std::string label_;
  bridge::frame_lines lines_;
  std::size_t stderr_logged_ = 0;
  bool cancelled_ = false;
};

}  // namespace

std::unique_ptr<bridge::frame_channel> create_attach_frame_channel(docker::attach_stream& stream, std::string label,
                                                                   std::size_t max_line) {
  return std::make_unique<attach_frame_channel>(stream, std::move(label), max_line);
}

}  // namespace harness::execution
