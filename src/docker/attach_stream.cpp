#include "attach_stream_impl.hpp"

#include <array>

#include "engine_errors.hpp"
#include "harness/docker/errors.hpp"

namespace harness::docker::detail {

attach_stream_impl::attach_stream_impl(std::unique_ptr<connection> conn, std::string leftover)
    : conn_(std::move(conn)) {
  if (!leftover.empty()) demuxer_.feed(leftover);
}

attach_stream_impl::~attach_stream_impl() {
  close();
}

task<status> attach_stream_impl::write_stdin(std::string_view data, std::chrono::milliseconds timeout) {
  if (closed_) co_return make_error(docker::errc::unreachable, "the attach stream is closed");
  co_return co_await conn_->write_all(data.data(), data.size(), timeout);
}

status attach_stream_impl::close_stdin() {
  if (closed_) return make_error(docker::errc::unreachable, "the attach stream is closed");
  return conn_->shutdown_send();
}

task<result<std::optional<output_chunk>>> attach_stream_impl::read(std::chrono::milliseconds timeout) {
  std::array<char, 16 * 1024> buffer{};
  for (;;) {
    if (auto chunk = demuxer_.next()) co_return std::optional<output_chunk>(std::move(*chunk));
    if (demuxer_.failed()) {
      co_return protocol_error("attach",
                               "the output is not in Docker's frame format (was the container created with Tty?)");
    }
    if (ended_ || closed_) {
      if (!demuxer_.at_frame_boundary()) co_return protocol_error("attach", "the stream ended inside a frame");
      co_return std::optional<output_chunk>{};
    }
    auto n = co_await conn_->read_some(buffer.data(), buffer.size(), timeout);
    if (!n) {
      // Beast closes the socket on a timeout: the stream cannot be read again.
      ended_ = true;
      co_return n.error();
    }
    if (*n == 0) {
      ended_ = true;
      continue;
    }
    demuxer_.feed(std::string_view(buffer.data(), *n));
  }
}

void attach_stream_impl::close() {
  if (closed_) return;
  closed_ = true;
  conn_->close();
}

}  // namespace harness::docker::detail
