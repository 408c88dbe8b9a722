#include "harness/bridge/call_socket.hpp"

#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "frames.hpp"
#include "harness/bridge/errors.hpp"
#include "harness/core/ids.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/with_deadline.hpp"
#include "pipe_frame_channel.hpp"

namespace harness::bridge {
namespace {

namespace asio = boost::asio;
using local = asio::local::stream_protocol;
constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
// A runtime connects once; a few strays (a leftover connection, a local
// process that found the file) are dropped, an endless stream of them is not served.
constexpr int max_attempts = 16;

error socket_error(std::string message) {
  return make_error(bridge::errc::call_socket_failed, std::move(message),
                    "check SANDBOX_CALL_SOCKET_DIR (a writable local folder), or set it empty to use stdio only");
}

// Hex of `bytes` random bytes: a secret id (the name hides the socket, the token authenticates).
result<std::string> random_hex(std::size_t bytes) {
  auto id = core::make_secret_id("", bytes);
  if (!id) return socket_error("no random bytes for the call socket: " + id.error().message);
  return id;
}

class call_socket_impl final : public call_socket {
 public:
  call_socket_impl(const asio::any_io_executor& executor, core::clock& clock, std::string path,
                   std::string runtime_path, std::string token)
      : executor_(executor),
        clock_(clock),
        acceptor_(executor),
        path_(std::move(path)),
        runtime_path_(std::move(runtime_path)),
        token_(std::move(token)) {}

  ~call_socket_impl() override { close_listener(); }

  status open() {
    boost::system::error_code ec;
    acceptor_.open(local(), ec);
    if (!ec) acceptor_.bind(local::endpoint(path_), ec);
    if (!ec) acceptor_.listen(4, ec);
    if (ec) return socket_error(fmt::format("cannot listen on {}: {}", path_, ec.message()));
    bound_ = true;
    // The sandbox's user (uid 1000) must be able to connect; the token keeps
    // other local users out.
    if (::chmod(path_.c_str(), 0666) != 0) {
      return socket_error(fmt::format("cannot chmod {}: {}", path_, std::strerror(errno)));
    }
    return {};
  }

  const std::string& path() const override { return path_; }
  const std::string& runtime_path() const override { return runtime_path_.empty() ? path_ : runtime_path_; }
  const std::string& token() const override { return token_; }

  asio::awaitable<result<std::unique_ptr<frame_channel>>> accept(std::chrono::milliseconds timeout,
                                                                 std::size_t max_line) override {
    // The deadline closes the listener (and drops a connection still saying
    // hello); the loop then reports call_socket_timeout.
    auto waiting = accept_loop(max_line, timeout);
    const auto deadline = clock_.steady_now() + timeout;
    auto on_expiry = [this] {
      timed_out_ = true;
      stop_waiting();
    };
    auto out = co_await core::with_deadline(clock_, std::move(waiting), deadline, on_expiry);
    close_listener();
    co_return std::move(out.value);
  }

 private:
  asio::awaitable<result<std::unique_ptr<frame_channel>>> accept_loop(std::size_t max_line,
                                                                      std::chrono::milliseconds timeout) {
    for (int attempt = 0; attempt < max_attempts; ++attempt) {
      local::socket peer(executor_);
      auto [ec] = co_await acceptor_.async_accept(peer, use_tuple);
      if (auto stop = stopped(timeout)) co_return *stop;
      if (ec) co_return socket_error("accepting on the call socket failed: " + ec.message());
      auto channel = create_socket_frame_channel(executor_, peer.release(), max_line);
      if (!channel) co_return socket_error("out of file descriptors for the call socket");
      candidate_ = channel.get();
      auto hello = co_await channel->read_line();
      candidate_ = nullptr;
      if (auto stop = stopped(timeout)) co_return *stop;
      if (hello && says_hello(*hello)) co_return channel;
      core::log_warn("call socket {}: dropped a connection that did not say hello with the session's token", path_);
    }
    co_return socket_error(fmt::format("{} connections to the call socket without the token", max_attempts));
  }

  bool says_hello(const std::string& line) const {
    auto frame = parse_frame(line);
    if (!frame || string_field(*frame, "type") != "hello") return false;
    auto token = frame->find("token");
    return token != frame->end() && token->is_string() && same_token(token->get_ref<const std::string&>(), token_);
  }

  std::optional<error> stopped(std::chrono::milliseconds timeout) const {
    if (timed_out_) {
      return make_error(
          bridge::errc::call_socket_timeout,
          fmt::format("the sandbox runtime did not connect to its call socket within {} ms", timeout.count()));
    }
    return std::nullopt;
  }

  void stop_waiting() {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    if (candidate_) candidate_->cancel();
  }

  void close_listener() {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    if (bound_) {
      ::unlink(path_.c_str());
      bound_ = false;
    }
  }

  asio::any_io_executor executor_;
  core::clock& clock_;
  local::acceptor acceptor_;
  std::string path_;
  std::string runtime_path_;
  std::string token_;
  frame_channel* candidate_ = nullptr;  // the connection whose hello is being read
  bool bound_ = false;
  bool timed_out_ = false;
};

}  // namespace

result<std::unique_ptr<call_socket>> call_socket::listen(const asio::any_io_executor& executor, core::clock& clock,
                                                         const std::string& dir, std::string runtime_path) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return socket_error(fmt::format("cannot create {}: {}", dir, ec.message()));
  // Others may pass through but not list: the socket names stay unknown to them.
  ::chmod(dir.c_str(), 0711);
  auto name = random_hex(8);
  if (!name) return name.error();
  auto token = random_hex(16);
  if (!token) return token.error();
  std::string path = dir + "/" + *name + ".sock";
  static_assert(call_socket::max_dir_length + 22 < sizeof(sockaddr_un{}.sun_path));
  if (path.size() >= sizeof(sockaddr_un{}.sun_path)) {
    return socket_error(fmt::format("the call socket path {} is longer than a unix socket allows ({} bytes)", path,
                                    sizeof(sockaddr_un{}.sun_path) - 1));
  }
  auto socket =
      std::make_unique<call_socket_impl>(executor, clock, std::move(path), std::move(runtime_path), std::move(*token));
  if (auto opened = socket->open(); !opened) return opened.error();
  return std::unique_ptr<call_socket>(std::move(socket));
}

asio::awaitable<result<std::unique_ptr<frame_channel>>> link_runtime(frame_channel& stdio, call_socket& socket,
                                                                     std::chrono::milliseconds timeout) {
  auto frame = dump_frame({{"type", "link"}, {"socket", socket.runtime_path()}, {"token", socket.token()}});
  auto sent = co_await stdio.write_line(std::move(frame));
  if (!sent) co_return sent.error();
  // The runtime's frames are capped at 16 MiB (its limits.frameBytes).
  auto accepted = co_await socket.accept(timeout, 16 * 1024 * 1024);
  co_return std::move(accepted);
}

bool same_token(std::string_view a, std::string_view b) {
  // Every byte of the longer one is looked at, whatever differs first.
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

}  // namespace harness::bridge
