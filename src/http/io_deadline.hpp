// A deadline for socket operations that, unlike beast::tcp_stream's timeout,
// cancels the pending operation without closing the socket, so the server can
// still answer 408 to a client that was too slow.
#pragma once

#include <chrono>
#include <memory>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

namespace harness::http {

class io_deadline {
 public:
  explicit io_deadline(boost::asio::ip::tcp::socket& socket) : state_(std::make_shared<state>(socket)) {}
  ~io_deadline() { state_->timer.cancel(); }
  io_deadline(const io_deadline&) = delete;
  io_deadline& operator=(const io_deadline&) = delete;

  // Starts (or restarts) the clock; when it runs out, pending operations on
  // the socket complete with operation_aborted and expired() turns true.
  void arm(std::chrono::steady_clock::duration timeout) {
    auto& s = *state_;
    s.expired = false;
    ++s.generation;
    s.timer.expires_after(timeout);
    s.timer.async_wait([weak = std::weak_ptr<state>(state_), generation = s.generation](boost::system::error_code ec) {
      auto locked = weak.lock();
      // A completion queued before disarm()/re-arm() belongs to an older deadline.
      if (ec || !locked || locked->generation != generation) return;
      locked->expired = true;
      boost::system::error_code ignored;
      locked->socket.cancel(ignored);
    });
  }

  void disarm() {
    ++state_->generation;
    state_->timer.cancel();
  }

  bool expired() const { return state_->expired; }

 private:
  struct state {
    explicit state(boost::asio::ip::tcp::socket& s) : socket(s), timer(s.get_executor()) {}
    boost::asio::ip::tcp::socket& socket;
    boost::asio::steady_timer timer;
    bool expired = false;
    unsigned long generation = 0;
  };
  std::shared_ptr<state> state_;
};

}  // namespace harness::http
